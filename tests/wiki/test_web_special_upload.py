"""`Special:Upload` and file pages over HTTP: an upload through the form lands on its file page
with the image, its history and the pages using it; the refusals (not signed in, blocked, no
token, banned or disguised file types, empty files) change nothing; warnings stop once."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, png, sign_in

from atrium.wiki.changes.blocks import BlockRequest
from atrium.wiki.changes.blocks import block as do_block
from atrium.wiki.changes.journal import Performer
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio

UPLOAD = "/w/index.php?title=Special:Upload"


async def _upload(
    wiki: WikiHarness, client: httpx.AsyncClient, name: str, data: bytes, **fields: str
) -> httpx.Response:
    form = {"wpDestFile": name, "wpUploadDescription": "A picture", "wpEditToken": ""} | fields
    if not fields.get("wpEditToken"):
        form["wpEditToken"] = await page_token(client)
    return await client.post(UPLOAD, data=form, files={"wpUploadFile": (name, data, "image/png")})


async def test_upload_shows_the_image_on_its_file_page_and_in_articles(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Alice")
    form = await client.get("/wiki/Special:Upload")
    assert form.status_code == 200
    assert 'enctype="multipart/form-data"' in form.text and 'name="wpUploadFile"' in form.text
    done = await _upload(wiki, client, "Sunset.png", png(1000, 500))
    assert done.status_code == 303
    assert done.headers["location"] == "/wiki/File:Sunset.png"
    await wiki.edit_page("Holiday", "[[File:Sunset.png|thumb|The sunset]]")
    page = await client.get("/wiki/File:Sunset.png")
    assert page.status_code == 200
    text = page.text
    assert 'id="file"' in text and 'id="filehistory"' in text and 'id="filelinks"' in text
    original = text.split('<div class="fullImageLink" id="file"><a href="', 1)[1].split('"')[0]
    assert original.startswith("/images/") and original.endswith("/Sunset.png")
    assert "/800px-Sunset.png" in text  # the 1000-pixel image is shown 800 wide
    assert (await client.get(original)).content[:8] == b"\x89PNG\r\n\x1a\n"
    assert ">Alice<" in text and "A picture" in text
    assert '<div class="mw-parser-output">' in text  # the description page's text, as HTML
    assert 'href="/wiki/Holiday"' in text
    article = (await client.get("/wiki/Holiday")).text
    assert 'class="thumbcaption"' in article and "The sunset" in article
    assert "Sunset.png" in article
    # A second version: the history lists both.
    again = await _upload(wiki, client, "Sunset.png", png(20, 10, 3), wpIgnoreWarning="1")
    assert again.status_code == 303
    history = (await client.get("/wiki/File:Sunset.png")).text
    assert history.count("<td>20 × 10") == 1 and history.count("<td>1000 × 500") == 1
    assert "/images/archive/" in history


async def test_warning_stops_once_then_upload_anyway(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Alice")
    assert (await _upload(wiki, client, "A.png", png(4, 4, 1))).status_code == 303
    warned = await _upload(wiki, client, "A.png", png(4, 4, 2))
    assert warned.status_code == 200
    assert "A file with this name exists already" in warned.text
    key = warned.text.split('name="wpSessionKey" value="', 1)[1].split('"')[0]
    anyway = await client.post(
        UPLOAD,
        data={"wpSessionKey": key, "wpIgnoreWarning": "1", "wpDestFile": "A.png",
              "wpEditToken": await page_token(client)},
    )  # fmt: skip
    assert anyway.status_code == 303
    same = await _upload(wiki, client, "A.png", png(4, 4, 2), wpIgnoreWarning="1")
    assert same.status_code == 200 and "exact duplicate" in same.text


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        (
            "Page.html",
            b"<script>alert(1)</script>",
            "MIME type &#34;text/html&#34; are not allowed",
        ),
        ("Page.html", b"\x89PNG\r\n\x1a\n" + b"\x00" * 20, "does not match the detected MIME"),
        ("Page.svg", b"<svg/>", "not a permitted file type"),
        ("Fake.png", b"<svg onload=alert(1)>", "does not match the detected MIME type"),
        ("Empty.png", b"", "seems to be empty"),
        ("Bad<name>.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 20, "not allowed"),
        ("Slash/x.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 20, "not allowed"),
    ],
)
async def test_bad_files_are_refused(
    wiki: WikiHarness, client: httpx.AsyncClient, name: str, data: bytes, says: str
) -> None:
    await sign_in(wiki, client, "Alice")
    response = await _upload(wiki, client, name, data)
    # SpecialUpload's answer: the form again with the error, at 200 (as MediaWiki 1.39).
    assert response.status_code == 200
    assert says in response.text
    assert "<script>alert" not in response.text and "<svg" not in response.text
    listed = await wiki.api(client, action="query", list="allimages")
    assert listed["query"]["allimages"] == []


async def test_refusals_without_session_token_or_when_blocked(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    anonymous = await client.get("/wiki/Special:Upload")
    assert anonymous.status_code == 200 and "log in" in anonymous.text
    assert "Not logged in" in anonymous.text
    await sign_in(wiki, client, "Alice")
    no_token = await _upload(wiki, client, "T.png", png(2, 2), wpEditToken="+\\")
    assert no_token.status_code == 200 and "session hijacking" in no_token.text
    assert 'name="wpUploadFile"' in no_token.text
    alice = await wiki.db.read(account_by_name, "Alice")
    assert alice is not None
    admin = Performer(1, "Admin", frozenset({"block"}))
    request = BlockRequest(
        target="Alice", user_id=alice.id, expiry="infinity", duration="infinite",
        reason="no uploads <b>today</b>",
    )  # fmt: skip
    await wiki.db.write(do_block, admin, request)
    blocked = await client.get("/wiki/Special:Upload")
    assert blocked.status_code == 200
    assert "You are blocked from editing" in blocked.text
    assert "no uploads &lt;b&gt;today&lt;/b&gt;" in blocked.text
    posted = await _upload(wiki, client, "T.png", png(2, 2))
    assert posted.status_code == 200 and "You are blocked from editing" in posted.text
    listed = await wiki.api(client, action="query", list="allimages")
    assert listed["query"]["allimages"] == []


async def test_missing_file_page_says_no_file(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    page = await client.get("/wiki/File:Nothing.png")
    assert page.status_code == 404
    assert "No file by this name exists." in page.text
