"""Rollback in a browser: the "rollback N edits" link on the history page and on the latest
revision's diff, only for those with the right; following it rolls back with the API's change;
the token in the link is checked, and a hidden last author is never named or rolled back."""

from __future__ import annotations

import html
import re

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_forms import sign_in

from atrium.wiki import schema
from atrium.wiki.changes import ChangeError, pageops
from atrium.wiki.changes.journal import Performer

pytestmark = pytest.mark.anyio

HISTORY = "/w/index.php?title=Story&action=history"


async def _story(wiki: WikiHarness) -> list[int]:
    return [
        await wiki.edit_page("Story", "Once.", summary="first"),
        await wiki.edit_page("Story", "Once upon.", user="Alice", summary="second"),
        await wiki.edit_page("Story", "Once upon a time.", user="Alice", summary="third"),
    ]


def _rollback_href(page: str) -> str | None:
    match = re.search(r'<span class="mw-rollback-link"><a href="([^"]+)"[^>]*>([^<]+)</a>', page)
    return html.unescape(match.group(1)) if match else None


async def test_rollback_link_and_action(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    one, _two, three = await _story(wiki)
    await sign_in(client, "Admin")
    history = (await client.get(HISTORY)).text
    assert ">rollback 2 edits</a>" in history
    href = _rollback_href(history)
    assert href is not None and "action=rollback" in href and "from=Alice" in href
    assert re.search(r"token=[0-9a-f]{40}%2B%5C$", href)
    # Only the latest line has it; the older lines have undo links.
    assert history.count("mw-rollback-link") == 1
    assert f"undoafter={one}&amp;undo={_two}" in history
    # The diff of the latest revision offers it too; an older one does not.
    latest_diff = (await client.get(f"/w/index.php?title=Story&diff={three}&oldid={one}")).text
    assert _rollback_href(latest_diff) is not None and ">rollback 2 edits</a>" in latest_diff
    older_diff = (await client.get(f"/w/index.php?title=Story&diff={_two}&oldid={one}")).text
    assert "mw-rollback-link" not in older_diff
    done = await client.get(href)
    assert done.status_code == 200, done.text[:400]
    assert "Action complete" in done.text
    said = re.sub(r"<[^>]+>", "", done.text)
    assert "Reverted edits by Alice (talk);\nchanged back to last revision by Admin (talk)." in said
    body = done.text.split("mw-content-text", 1)[1]
    assert 'table class="diff' in body and "diff-deletedline" in body
    assert (await client.get("/w/index.php?title=Story&action=raw")).text == "Once."
    info = await wiki.api(
        client, action="query", prop="revisions", titles="Story", rvprop="user|comment|tags"
    )
    top = next(iter(info["query"]["pages"].values()))["revisions"][0]
    assert top["user"] == "Admin" and "mw-rollback" in top["tags"]
    assert top["comment"].startswith("Reverted edits by [[Special:Contributions/Alice|Alice]]")
    # Following the link again: someone (we) rolled back already.
    again = await client.get(href)
    # RollbackAction's ErrorPageError, at 200 (as MediaWiki 1.39).
    assert again.status_code == 200 and "Rollback failed" in again.text
    assert "rolled back the page already" in again.text
    assert (await client.get("/w/index.php?title=Story&action=raw")).text == "Once."


async def test_api_rollback_token_works_in_the_link(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """The link's token is the API's rollback token of the same session."""
    await _story(wiki)
    await sign_in(client, "Admin")
    tokens = await wiki.api(client, action="query", meta="tokens", type="rollback")
    token = tokens["query"]["tokens"]["rollbacktoken"]
    done = await client.get(
        "/w/index.php", params={"title": "Story", "action": "rollback", "from": "Alice",
                                "token": token},
    )  # fmt: skip
    assert done.status_code == 200 and "Action complete" in done.text


async def test_no_link_and_refusal_without_the_right(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _story(wiki)
    await wiki.edit_page("Story", "Alice's last word.", user="Admin")
    anonymous = (await client.get(HISTORY)).text
    assert "mw-rollback-link" not in anonymous and "action=rollback" not in anonymous
    await sign_in(client, "Alice")
    history = (await client.get(HISTORY)).text
    assert "mw-rollback-link" not in history
    refused = await client.get("/w/index.php?title=Story&action=rollback&from=Admin&token=%2B%5C")
    assert refused.status_code == 200 and "Permission error" in refused.text
    assert (await client.get("/w/index.php?title=Story&action=raw")).text == "Alice's last word."


async def test_forged_or_foreign_token_rolls_nothing_back(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _story(wiki)
    async with wiki.client() as other:
        await sign_in(other, "Admin")
        foreign = _rollback_href((await other.get(HISTORY)).text)
    assert foreign is not None
    await sign_in(client, "Admin")
    # Another session's link (a page that lured this browser to it) is refused.
    refused = await client.get(foreign)
    assert refused.status_code == 200 and "Session failure" in refused.text
    for token in ("", "+\\", "0" * 40 + "+\\"):
        forged = await client.get(
            "/w/index.php",
            params={"title": "Story", "action": "rollback", "from": "Alice", "token": token},
        )
        assert forged.status_code == 200 and "Session failure" in forged.text
    missing = await client.get("/w/index.php?title=Story&action=rollback")
    assert missing.status_code == 200 and "Rollback failed" in missing.text
    assert "Missing required parameters on request." in missing.text
    assert (await client.get("/w/index.php?title=Story&action=raw")).text == "Once upon a time."


async def test_hidden_last_author_is_not_named(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    _one, _two, three = await _story(wiki)
    await sign_in(client, "Admin")
    href = _rollback_href((await client.get(HISTORY)).text)
    assert href is not None
    await wiki.db.write(
        lambda conn: conn.execute(
            sa.update(schema.revision)
            .where(schema.revision.c.rev_id == three)
            .values(rev_deleted=4 | 8)  # user hidden, suppressed: even admins may not see it
        )
    )
    history = (await client.get(HISTORY)).text
    assert "mw-rollback-link" not in history and "from=Alice" not in history
    refused = await client.get(href)
    assert refused.status_code == 200 and "(username removed)" in refused.text
    assert (await client.get("/w/index.php?title=Story&action=raw")).text == "Once upon a time."


async def test_only_author_and_hidden_target_get_no_link(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Solo", "One.", user="Alice")
    await wiki.edit_page("Solo", "Two.", user="Alice")
    await sign_in(client, "Admin")
    solo = (await client.get("/w/index.php?title=Solo&action=history")).text
    assert "mw-rollback-link" not in solo
    one, _two, _three = await _story(wiki)
    await wiki.db.write(
        lambda conn: conn.execute(
            sa.update(schema.revision).where(schema.revision.c.rev_id == one).values(rev_deleted=1)
        )
    )
    history = (await client.get(HISTORY)).text
    assert "mw-rollback-link" not in history


async def test_protected_page_offers_no_undo_or_rollback_to_members(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _story(wiki)
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        done = await wiki.post(
            admin, action="protect", title="Story", protections="edit=sysop",
            token=await wiki.csrf(admin),
        )  # fmt: skip
        assert "error" not in done, done
        shown = (await admin.get(HISTORY)).text
        assert "mw-history-undo" in shown and "mw-rollback-link" in shown
    await sign_in(client, "Alice")
    history = (await client.get(HISTORY)).text
    assert "mw-history-undo" not in history and "mw-rollback-link" not in history
    diff = (await client.get("/w/index.php?title=Story&diff=prev")).text
    assert "mw-diff-undo" not in diff


async def test_rollback_of_a_protected_page_needs_its_level(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """The write side refuses a rollback on a page protected above the performer's rights,
    whoever calls it, as RollbackPage asks for the edit permission."""
    await _story(wiki)
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        done = await wiki.post(
            admin, action="protect", title="Story", protections="edit=sysop",
            token=await wiki.csrf(admin),
        )  # fmt: skip
        assert "error" not in done, done
    title = wiki.site.parser.parse("Story")
    rollbacker = Performer(None, "Rollbacker", frozenset({"rollback", "edit"}))
    with pytest.raises(ChangeError) as refused:
        await wiki.db.write(
            pageops.rollback, wiki.site, rollbacker, title, "Alice", "", False
        )  # fmt: skip
    assert refused.value.code == "protectedpage"
    assert (await client.get("/w/index.php?title=Story&action=raw")).text == "Once upon a time."
