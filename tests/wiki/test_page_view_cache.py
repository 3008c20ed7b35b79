"""Page views served from the parser cache: a view of an unchanged page does not render it again,
and every change of what the page shows (a template edit, a page created or deleted behind a
link, an upload of a file it embeds, a revision's author or a user hidden, a move) shows at once,
on SQLite and PostgreSQL. What belongs to the viewer (name, tokens, edit links) is never shared.
"""

from __future__ import annotations

import re

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness
from tests.wiki.test_revision_delete import _oversight, _revdel
from tests.wiki.web_special_seed import page_token, png, sign_in

from atrium.wiki import schema

pytestmark = pytest.mark.anyio


async def _view(client: httpx.AsyncClient, title: str) -> str:
    response = await client.get(f"/wiki/{title}")
    assert response.status_code == 200, response.status_code
    return response.text


async def _body(client: httpx.AsyncClient, title: str) -> str:
    """The page's content area: its rendered text and category box."""
    page = await _view(client, title)
    match = re.search(r'<div id="mw-content-text".*?(?=</main>)', page, re.S)
    assert match is not None
    return match.group(0)


async def _rewrite_text_behind_the_cache(wiki: WikiHarness, title: str, text: str) -> None:
    """Change the stored text of a page's current revision without any change going through
    `changes` (nothing is marked): only a rendering that was kept still shows the old text."""
    p, r, t = schema.page, schema.revision, schema.text
    parsed = wiki.site.parser.parse(title)
    text_id = (
        sa.select(r.c.rev_text_id)
        .join(p, p.c.page_latest == r.c.rev_id)
        .where(p.c.page_namespace == parsed.ns, p.c.page_title == parsed.dbkey)
        .scalar_subquery()
    )
    await wiki.db.write(
        lambda conn: conn.execute(sa.update(t).where(t.c.old_id == text_id).values(old_text=text))
    )


async def test_unchanged_page_is_served_from_the_cache(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Kept", "The first words.")
    assert "The first words." in await _body(client, "Kept")
    await _rewrite_text_behind_the_cache(wiki, "Kept", "Words nobody saved.")
    assert "The first words." in await _body(client, "Kept")
    # An edit is a new revision: the view shows it at once.
    await wiki.edit_page("Kept", "The second words.")
    assert "The second words." in await _body(client, "Kept")


async def test_template_edit_shows_on_the_transcluding_page(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Template:Inner", "alpha")
    await wiki.edit_page("Template:Outer", "[{{Inner}}]")
    await wiki.edit_page("Host", "Box: {{Outer}} and {{Missing one}}")
    body = await _body(client, "Host")
    assert "Box: [alpha]" in body and "Template:Missing_one" in body
    await wiki.edit_page("Template:Inner", "beta")  # two levels down
    assert "Box: [beta]" in await _body(client, "Host")
    await wiki.edit_page("Template:Outer", "({{Inner}})")
    assert "Box: (beta)" in await _body(client, "Host")
    await wiki.edit_page("Template:Missing one", "now made")  # a template created
    assert "now made" in await _body(client, "Host")
    # A template the page reaches only through a template edited after the page was saved.
    await wiki.edit_page("Template:Third", "gamma")
    await wiki.edit_page("Template:Outer", "<{{Third}}>")
    assert "Box: &lt;gamma&gt;" in await _body(client, "Host")
    await wiki.edit_page("Template:Third", "delta")
    assert "Box: &lt;delta&gt;" in await _body(client, "Host")


async def test_red_link_turns_blue_and_red_again(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Template:Nav", "see [[Far page]]")
    await wiki.edit_page("Linker", "[[Later page]] {{Nav}}")
    body = await _body(client, "Linker")
    assert 'title="Later page (page does not exist)"' in body
    assert 'title="Far page (page does not exist)"' in body
    await wiki.edit_page("Later page", "here now")
    await wiki.edit_page("Far page", "here too")  # linked from a template the page uses
    body = await _body(client, "Linker")
    assert 'class="new"' not in body and 'href="/wiki/Later_page"' in body
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    deleted = await wiki.post(client, action="delete", title="Later page", token=token)
    assert "delete" in deleted, deleted
    assert 'title="Later page (page does not exist)"' in await _body(client, "Linker")
    restored = await wiki.post(client, action="undelete", title="Later page", token=token)
    assert "undelete" in restored, restored
    assert 'title="Later page (page does not exist)"' not in await _body(client, "Linker")
    # A moved page leaves its old name red (no redirect) and its new name blue.
    await wiki.edit_page("Mover", "[[Far page]] [[Far place]]")
    assert 'title="Far place (page does not exist)"' in await _body(client, "Mover")
    moved = await wiki.post(
        client, action="move", **{"from": "Far page"}, to="Far place", noredirect="1", token=token
    )
    assert "move" in moved, moved
    body = await _body(client, "Mover")
    assert 'title="Far page (page does not exist)"' in body
    assert 'title="Far place (page does not exist)"' not in body


async def test_upload_shows_in_the_page_that_embeds_the_file(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Holiday", "[[File:Beach.png|thumb|The beach]]")
    before = await _body(client, "Holiday")
    assert "Special:Upload" in before and "<img" not in before
    await sign_in(wiki, client, "Alice")
    done = await client.post(
        "/w/index.php?title=Special:Upload",
        data={"wpDestFile": "Beach.png", "wpUploadDescription": "x", "wpEditToken": ""}
        | {"wpEditToken": await page_token(client)},
        files={"wpUploadFile": ("Beach.png", png(300, 200), "image/png")},
    )
    assert done.status_code == 303, done.text
    after = await _body(client, "Holiday")
    assert "<img" in after and "Beach.png" in after and "The beach" in after


async def test_hidden_author_disappears_from_the_view(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    rev = await wiki.edit_page("Signed", "Written by {{REVISIONUSER}}.", user="Alice")
    assert "Written by Alice." in await _body(client, "Signed")
    oversight = await _oversight(wiki)
    try:
        done = await _revdel(wiki, oversight, target="Signed", ids=str(rev), hide="user")
    finally:
        await oversight.aclose()
    assert "revisiondelete" in done, done
    async with wiki.client() as anonymous:
        body = await _body(anonymous, "Signed")
    assert "Alice" not in body and "Written by ." in body


async def test_hidden_user_disappears_from_the_pages_they_wrote_last(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Template:Signature", "Signed {{REVISIONUSER}}", user="Alice")
    await wiki.edit_page("Letter", "{{Signature}}. Last by {{REVISIONUSER}}.", user="Alice")
    assert "Last by Alice." in await _body(client, "Letter")
    oversight = await _oversight(wiki)
    try:
        token = await wiki.csrf(oversight)
        blocked = await wiki.post(
            oversight, action="block", user="Alice", hidename="1", expiry="infinite", token=token
        )
        assert "block" in blocked, blocked
        body = await _body(client, "Letter")
        assert "Alice" not in body and "Last by ." in body
        unblocked = await wiki.post(oversight, action="unblock", user="Alice", token=token)
        assert "unblock" in unblocked, unblocked
    finally:
        await oversight.aclose()
    assert "Last by Alice." in await _body(client, "Letter")


async def test_viewer_parts_never_reach_another_viewer(wiki: WikiHarness) -> None:
    await wiki.edit_page("Shared", "== Part ==\nCommon text.")
    async with wiki.client() as alice, wiki.client() as anonymous, wiki.client() as admin:
        await sign_in(wiki, alice, "Alice")
        await sign_in(wiki, admin, "Admin")
        seen_by_alice = await _view(alice, "Shared")
        alice_token = await page_token(alice)
        seen_by_anonymous = await _view(anonymous, "Shared")
        seen_by_admin = await _view(admin, "Shared")
        # The kept body is the same for all three; the chrome around it is each one's own.
        assert "Common text." in seen_by_anonymous and "Common text." in seen_by_admin
        assert "Alice" in seen_by_alice and "Alice" not in seen_by_anonymous
        assert "Alice" not in seen_by_admin and "Admin" in seen_by_admin
        assert alice_token not in seen_by_anonymous and alice_token not in seen_by_admin
        anonymous_again = await _view(anonymous, "Shared")
        assert "Admin" not in anonymous_again and "Alice" not in anonymous_again
