"""`Special:Redirect` and `Special:FilePath` over HTTP: each lookup type redirects (a file to its
URL, a page id to the page, a revision to `oldid`, a user id to the user page, a log id to that
entry of `Special:Log`), the form and its 404 answers for values that name nothing or are not
numbers, a hidden user's id refused, and hostile values escaped."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit, page_token, png, sign_in

from atrium.wiki.changes.accounts import create_user
from atrium.wiki.changes.blocks import BlockRequest
from atrium.wiki.changes.blocks import block as do_block
from atrium.wiki.changes.journal import Performer
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio


async def _location(client: httpx.AsyncClient, path: str, status: int = 301) -> str:
    response = await client.get(path)
    assert response.status_code == status, (path, response.status_code)
    return response.headers["location"]


async def test_lookups_redirect(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    page_id = await edit(wiki, "Target page", "text")
    info = await wiki.api(
        client, action="query", titles="Target page", prop="revisions", formatversion=2
    )
    revid = info["query"]["pages"][0]["revisions"][0]["revid"]
    # As MediaWiki: a page id goes on to index.php?curid=, which shows that page.
    assert await _location(client, f"/wiki/Special:Redirect/page/{page_id}") == (
        f"/w/index.php?curid={page_id}"
    )
    shown = await client.get(f"/w/index.php?curid={page_id}")
    assert shown.status_code == 200 and "Target page" in shown.text
    missing = await client.get("/w/index.php?curid=999999")
    assert missing.status_code == 404 and "Bad title" in missing.text
    assert (await client.get("/w/index.php?curid=%3Cscript%3E")).status_code == 404
    assert await _location(client, "/wiki/Special:Redirect/page/999999") == (
        "/w/index.php?curid=999999"
    )
    assert await _location(client, f"/wiki/Special:Redirect/revision/{revid}") == (
        f"/w/index.php?oldid={revid}"
    )
    alice = await wiki.db.read(account_by_name, "Alice")
    assert alice is not None
    assert await _location(client, f"/wiki/Special:Redirect/user/{alice.id}", 302) == (
        "/wiki/User:Alice"
    )
    form = await client.get("/wiki/Special:Redirect", params={"wptype": "page", "wpvalue": page_id})
    assert form.status_code == 301 and form.headers["location"] == f"/w/index.php?curid={page_id}"
    await sign_in(wiki, client, "Admin")
    token = await page_token(client)
    uploaded = await client.post(
        "/w/index.php?title=Special:Upload",
        data={"wpDestFile": "Shown.png", "wpUploadDescription": "", "wpEditToken": token},
        files={"wpUploadFile": ("Shown.png", png(20, 10), "image/png")},
    )
    assert uploaded.status_code == 303
    url = await _location(client, "/wiki/Special:Redirect/file/Shown.png")
    assert url.startswith("/images/") and url.endswith("/Shown.png")
    assert (await client.get(url)).status_code == 200
    assert await _location(client, "/wiki/Special:Redirect/file/File:Shown.png") == url
    assert await _location(client, "/wiki/Special:Filepath/Shown.png", 302) == (
        "/wiki/Special:Redirect/file/Shown.png"
    )
    assert await _location(client, "/wiki/Special:Filepath", 302) == ("/wiki/Special:Redirect/file")


async def test_log_id_leads_to_that_entry(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Logged one", "a")
    await edit(wiki, "Logged two", "b")
    await sign_in(wiki, client, "Admin")
    token = await page_token(client)
    for title in ("Logged_one", "Logged_two"):
        await client.post(
            f"/w/index.php?title={title}&action=protect",
            data={"mwProtect-level-edit": "sysop", "mwProtect-reason": "why",
                  "wpEditToken": token},
        )  # fmt: skip
    events = await wiki.api(client, action="query", list="logevents", letype="protect")
    first = min(e["logid"] for e in events["query"]["logevents"])
    target = await _location(client, f"/wiki/Special:Redirect/logid/{first}")
    assert target == f"/w/index.php?title=Special%3ALog&logid={first}"
    text = (await client.get(f"/w/index.php?title=Special:Log&logid={first}")).text
    assert "Logged one" in text and "Logged two" not in text


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("/user/abc", "Value not numeric"),
        ("/page/0", "Value not found"),
        ("/user/99999999999999999999999", "Value not found"),
        ("/revision/-4", "Value not numeric"),
        ("/logid/%E2%91%A0", "Value not numeric"),
        ("/file/Nothing.png", "Value not found"),
        ("?wptype=file&wpvalue=%3Cscript%3Ealert(1)%3C%2Fscript%3E", "invalid characters"),
        ("?wptype=user&wpvalue=%3Cscript%3Ealert(1)%3C%2Fscript%3E", "Value not numeric"),
    ],
)
async def test_values_that_name_nothing_are_404(
    wiki: WikiHarness, client: httpx.AsyncClient, path: str, error: str
) -> None:
    response = await client.get(f"/wiki/Special:Redirect{path}")
    assert response.status_code == 404
    assert 'name="wpvalue"' in response.text and error in response.text
    assert "<script>alert" not in response.text


async def test_form_and_hidden_users(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    form = await client.get("/wiki/Special:Redirect")
    assert form.status_code == 200 and 'name="wptype"' in form.text
    assert '<option value="user" selected>User ID</option>' in form.text
    unknown = await client.get("/wiki/Special:Redirect/nosuchtype/12")
    assert unknown.status_code == 200 and 'value="12"' in unknown.text
    typed = await client.get("/wiki/Special:Redirect/file")
    assert typed.status_code == 200 and '<option value="file" selected>' in typed.text
    robot = await wiki.db.read(account_by_name, "Robot")
    assert robot is not None
    request = BlockRequest(
        target="Robot", user_id=robot.id, expiry="infinity", duration="infinite", hidename=True
    )
    await wiki.db.write(do_block, Performer(1, "Admin", frozenset({"block", "hideuser"})), request)
    refused = await client.get(f"/wiki/Special:Redirect/user/{robot.id}")
    # A permission error page, answered 200 as MediaWiki 1.39 answers them, naming no one.
    assert refused.status_code == 200 and "Permission error" in refused.text
    assert "Robot" not in refused.text and "location" not in refused.headers
    await sign_in(wiki, client, "Admin")  # an administrator does not see hidden users
    again = await client.get(f"/wiki/Special:Redirect/user/{robot.id}")
    assert again.status_code == 200 and "location" not in again.headers
    await wiki.db.write(
        lambda conn: create_user(conn, "Overseer", "overseer-password-1", groups=["suppress"])
    )
    await sign_in(wiki, client, "Overseer")
    assert await _location(client, f"/wiki/Special:Redirect/user/{robot.id}", 302) == (
        "/wiki/User:Robot"
    )
