"""`action=delete` and `Special:MovePage` over HTTP: the forms, the changes they make (the API's
delete and move), and the refusals: no right, no token, a missing page, a bad or taken title."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

from atrium.wiki.reads.page_view import raw_text

pytestmark = pytest.mark.anyio

DELETE = "/w/index.php?title=Doomed&action=delete"
MOVE = "/w/index.php?title=Special:MovePage"


async def _text(wiki: WikiHarness, title: str) -> str | None:
    parsed = wiki.site.parser.parse(title)
    return await wiki.db.read(raw_text, parsed.ns, parsed.dbkey)


async def test_administrator_deletes_a_page(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Doomed", "soon gone")
    await sign_in(wiki, client, "Admin")
    form = await client.get(DELETE)
    assert form.status_code == 200 and 'id="wpConfirmB"' in form.text
    done = await client.post(
        DELETE, data={"wpReason": "<b>spam</b>", "wpEditToken": await page_token(client)}
    )
    assert done.status_code == 200 and "has been deleted" in done.text
    assert await _text(wiki, "Doomed") is None
    log = (await client.get("/wiki/Special:Log/delete")).text
    assert "deleted page" in log and "(&lt;b&gt;spam&lt;/b&gt;)" in log
    again = await client.get(DELETE)
    # DeleteAction's `cannotdelete`, at 200 (as MediaWiki 1.39).
    assert again.status_code == 200 and "could not be deleted" in again.text


async def test_delete_refusals(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Doomed", "still here")
    await sign_in(wiki, client, "Alice")
    denied = await client.post(DELETE, data={"wpEditToken": await page_token(client)})
    assert denied.status_code == 200 and "Permission error" in denied.text
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        for token in ("", "+\\", "nonsense"):
            refused = await admin.post(DELETE, data={"wpEditToken": token})
            assert refused.status_code == 200 and "session hijacking" in refused.text
            assert 'name="wpReason"' in refused.text
    assert await _text(wiki, "Doomed") == "still here"
    # MediaWiki has no Special:Delete; Special:DeletePage asks for the page.
    gone = await client.get("/w/index.php?title=Special:Delete")
    assert gone.status_code == 404
    asks = await client.get("/w/index.php?title=Special:DeletePage")
    assert asks.status_code == 200 and 'name="target"' in asks.text


async def test_member_moves_a_page_with_its_talk_page(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Old name", "content")
    await wiki.edit_page("Talk:Old name", "talk")
    await sign_in(wiki, client, "Alice")
    form = await client.get("/wiki/Special:MovePage/Old_name")
    assert form.status_code == 200 and 'name="wpNewTitle"' in form.text
    done = await client.post(
        MOVE,
        data={"target": "Old name", "wpNewTitle": "New name", "wpReason": "better",
              "wpMovetalk": "1", "wpLeaveRedirect": "1",
              "wpEditToken": await page_token(client)},
    )  # fmt: skip
    assert done.status_code == 200 and "has been moved to" in done.text
    assert await _text(wiki, "New name") == "content"
    assert await _text(wiki, "Talk:New name") == "talk"
    assert (await _text(wiki, "Old name") or "").startswith("#REDIRECT")


@pytest.mark.parametrize(
    ("new", "says"),
    [("", "empty or invalid"), ("<bad>", "empty or invalid"), ("Taken", "already exists")],
)
async def test_move_refusals_show_the_form_again(
    wiki: WikiHarness, client: httpx.AsyncClient, new: str, says: str
) -> None:
    await wiki.edit_page("Source", "content")
    await wiki.edit_page("Taken", "other")
    await sign_in(wiki, client, "Alice")
    response = await client.post(
        MOVE,
        data={"target": "Source", "wpNewTitle": new, "wpEditToken": await page_token(client)},
    )
    # SpecialMovePage's answer: the form again with the error, at 200 (as MediaWiki 1.39).
    assert response.status_code == 200
    assert says in response.text
    assert "<bad>" not in response.text
    assert await _text(wiki, "Source") == "content"


async def test_move_needs_sign_in_and_token(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Source", "content")
    anonymous = await client.get("/wiki/Special:MovePage/Source")
    assert anonymous.status_code == 200 and "Not logged in" in anonymous.text
    assert 'name="wpNewTitle"' not in anonymous.text
    await sign_in(wiki, client, "Alice")
    refused = await client.post(
        MOVE, data={"target": "Source", "wpNewTitle": "Elsewhere", "wpEditToken": "+\\"}
    )
    assert refused.status_code == 200 and "session hijacking" in refused.text
    assert await _text(wiki, "Elsewhere") is None
    missing = await client.get("/wiki/Special:MovePage/Nowhere")
    assert (
        missing.status_code == 200
        and "The target page you have specified does not exist" in missing.text
    )
