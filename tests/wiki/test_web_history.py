"""History, diffs, old revisions, undo and watching in a browser; hidden revision parts stay
hidden on every one of those pages."""

from __future__ import annotations

import re

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness
from tests.wiki.test_web_edit import _form_fields, _raw
from tests.wiki.web_forms import hidden, sign_in

from atrium.wiki import schema

pytestmark = pytest.mark.anyio


async def _three(wiki: WikiHarness) -> list[int]:
    return [
        await wiki.edit_page("Story", "Once.", summary="first"),
        await wiki.edit_page("Story", "Once upon.", user="Alice", summary="second"),
        await wiki.edit_page("Story", "Once upon a time.", summary="third"),
    ]


async def test_history_links_and_compare(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    one, two, three = await _three(wiki)
    page = (await client.get("/w/index.php?title=Story&action=history")).text
    assert f'name="oldid" id="mw-oldid-{two}"' in page and f'id="mw-diff-{three}"' in page
    assert "Compare selected revisions" in page
    assert f"diff=prev&amp;oldid={two}" in page and f"diff={three}&amp;oldid={one}" in page
    # The form's GET, as the button submits it.
    diff = await client.get(
        f"/w/index.php?title=Story&action=historysubmit&type=revision&diff={three}&oldid={one}"
    )
    assert diff.status_code == 200
    text = diff.text
    assert '<table class="diff' in text and 'id="mw-diff-otitle1"' in text
    assert "Latest revision as of" in text and "Story: Difference between revisions" in text
    assert "(first)" in text and "(third)" in text and "diff-addedline" in text
    prev = (await client.get(f"/w/index.php?title=Story&diff=prev&oldid={two}")).text
    assert "(first)" in prev and "(second)" in prev and "Alice" in prev
    nxt = (await client.get(f"/w/index.php?title=Story&diff=next&oldid={one}")).text
    assert "(second)" in nxt
    cur = (await client.get(f"/w/index.php?title=Story&diff=cur&oldid={one}")).text
    assert "(third)" in cur
    missing = await client.get("/w/index.php?title=Story&diff=999999&oldid=1")
    # DifferenceEngine's error on the page, at 200 (as MediaWiki 1.39).
    assert missing.status_code == 200 and "(999999) was not found" in missing.text
    bad = await client.get("/w/index.php?title=Story&diff=%3Cx%3E&oldid=abc")
    assert bad.status_code in (200, 404) and "<x>" not in bad.text


async def test_old_revision_has_the_notice(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    one, _second, three = await _three(wiki)
    old = (await client.get(f"/w/index.php?title=Story&oldid={one}")).text
    assert 'id="mw-revision-info"' in old and "<p>Once.\n</p>" in old
    assert "Revision as of" in old
    latest = (await client.get(f"/w/index.php?title=Story&oldid={three}")).text
    assert 'id="mw-revision-info"' not in latest and "Once upon a time." in latest
    older = (await client.get(f"/w/index.php?title=Story&oldid={three}&direction=prev")).text
    assert "<p>Once upon.\n</p>" in older


async def test_hidden_parts_stay_hidden(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    one, two, _latest = await _three(wiki)
    await wiki.db.write(
        lambda conn: conn.execute(
            sa.update(schema.revision).where(schema.revision.c.rev_id == two).values(rev_deleted=7)
        )
    )
    old = await client.get(f"/w/index.php?title=Story&oldid={two}")
    assert old.status_code == 403 and "Once upon." not in old.text
    assert "has been deleted" in old.text
    diff = await client.get(f"/w/index.php?title=Story&diff={two}&oldid={one}")
    assert diff.status_code == 403 and "Once upon.<" not in diff.text
    assert "diff-addedline" not in diff.text
    history = (await client.get("/w/index.php?title=Story&action=history")).text
    line = re.search(rf'<li data-mw-revid="{two}".*?</li>', history, re.S)
    assert line is not None
    assert "Alice" not in line.group(0) and "second" not in line.group(0)
    assert "(username removed)" in line.group(0)


async def test_raw_old_revision_and_who_sees_hidden_parts(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    one, two, _latest = await _three(wiki)
    other = await wiki.edit_page("Elsewhere", "Another page.")
    old = await client.get(f"/w/index.php?title=Story&action=raw&oldid={one}")
    assert old.status_code == 200 and old.text == "Once."
    for oldid in (str(other), "999999", "x"):
        wrong = await client.get(f"/w/index.php?title=Story&action=raw&oldid={oldid}")
        assert (wrong.status_code, wrong.text) == (404, "")
    await wiki.db.write(
        lambda conn: conn.execute(
            sa.update(schema.revision).where(schema.revision.c.rev_id == two).values(rev_deleted=7)
        )
    )
    hidden_raw = await client.get(f"/w/index.php?title=Story&action=raw&oldid={two}")
    assert (hidden_raw.status_code, hidden_raw.text) == (404, "")
    # An administrator (deletedtext, deletedhistory) sees what was hidden, as in MediaWiki.
    await sign_in(client, "Admin")
    shown = await client.get(f"/w/index.php?title=Story&action=raw&oldid={two}")
    assert (shown.status_code, shown.text) == (200, "Once upon.")
    history = (await client.get("/w/index.php?title=Story&action=history")).text
    line = re.search(rf'<li data-mw-revid="{two}".*?</li>', history, re.S)
    assert line is not None and "Alice" in line.group(0) and "second" in line.group(0)


async def test_undo(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    _first, two, three = await _three(wiki)
    await sign_in(client, "Admin", "admin-password-1")
    diff = (await client.get(f"/w/index.php?title=Story&diff={three}&oldid={two}")).text
    assert f"undoafter={two}&amp;undo={three}" in diff
    form = await client.get(f"/w/index.php?title=Story&action=edit&undoafter={two}&undo={three}")
    assert "The edit can be undone" in form.text
    fields = _form_fields(form.text)
    assert fields["wpTextbox1"] == "Once upon."
    fields["wpUndidRevision"] = hidden(form.text, "wpUndidRevision")
    saved = await client.post(
        "/w/index.php?title=Story&action=submit",
        data={**fields, "wpSummary": "undo it", "wpSave": "1"},
    )
    assert saved.status_code == 303
    assert await _raw(client, "Story") == "Once upon."


async def test_watch_needs_a_post_with_the_token(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Watched", "W.")
    anonymous = await client.get("/w/index.php?title=Watched&action=watch")
    assert anonymous.status_code == 302
    assert anonymous.headers["location"] == (
        "/wiki/Special:UserLogin?returnto=Watched&returntoquery=action%3Dwatch"
        "&warning=watchlistanontext"
    )
    await sign_in(client, "Alice")
    confirm = await client.get("/w/index.php?title=Watched&action=watch")
    assert "to your watchlist?" in confirm.text

    async def watched() -> bool:
        data = await wiki.api(
            client, action="query", titles="Watched", prop="info", inprop="watched"
        )
        return "watched" in next(iter(data["query"]["pages"].values()))

    assert not await watched()
    forged = await client.post(
        "/w/index.php?title=Watched&action=watch", data={"wpEditToken": "forged"}
    )
    assert forged.status_code == 200 and "session hijacking" in forged.text
    assert not await watched()
    token = hidden(confirm.text, "wpEditToken")
    done = await client.post("/w/index.php?title=Watched&action=watch", data={"wpEditToken": token})
    assert "have been added to" in done.text and await watched()
    assert 'id="ca-unwatch"' in (await client.get("/wiki/Watched")).text
    await client.post("/w/index.php?title=Watched&action=unwatch", data={"wpEditToken": token})
    assert not await watched()


async def test_page_information(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await _three(wiki)
    page = await client.get("/w/index.php?title=Story&action=info")
    assert page.status_code == 200
    assert "Information for &#34;Story&#34;" in page.text
    assert "Page creator</td><td>Admin" in page.text and "Allow all users" in page.text
    missing = await client.get("/w/index.php?title=Nowhere&action=info")
    assert missing.status_code == 404
