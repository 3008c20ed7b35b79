"""`Special:Import` over HTTP: an administrator uploads a MediaWiki XML export and its pages
arrive with their history, a null revision and an import log entry each; importing again adds
nothing; readers without the right, foreign posts, a missing file or prefix, files that are not
exports and titles that cannot exist are refused with MediaWiki's messages, escaped."""

from __future__ import annotations

from html import unescape

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

pytestmark = pytest.mark.anyio

URL = "/w/index.php?title=Special:Import&action=submit"
HOSTILE = '"><img src=x onerror=alert(1)><script>alert(2)</script>'


def _revision(ts: str, user: str, comment: str, text: str) -> str:
    return (
        f"<revision><timestamp>{ts}</timestamp><contributor><username>{user}</username>"
        f"<id>7</id></contributor><comment>{comment}</comment><model>wikitext</model>"
        f'<format>text/x-wiki</format><text xml:space="preserve">{text}</text></revision>'
    )


def _dump() -> bytes:
    escaped = HOSTILE.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    pages = [
        ("Imported &quot;quoted&quot; &amp;amp", 0, [
            _revision("2019-01-01T00:00:00Z", "Stranger", escaped, "first"),
            _revision("2019-01-02T00:00:00Z", "Alice", "second", "second text"),
        ]),
        ("Special:Nope", -1, [_revision("2019-01-01T00:00:00Z", "Stranger", "x", "y")]),
    ]  # fmt: skip
    body = "".join(
        f"<page><title>{t}</title><ns>{ns}</ns><id>1</id>{''.join(revs)}</page>"
        for t, ns, revs in pages
    )
    return (
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11">'
        '<siteinfo><sitename>Elsewhere</sitename><namespaces><namespace key="0" case="first-letter"/>'
        '<namespace key="-1" case="first-letter">Special</namespace></namespaces></siteinfo>'
        f"{body}</mediawiki>"
    ).encode()


async def _post(
    client: httpx.AsyncClient, data: bytes | None, token: str | None, **fields: str
) -> httpx.Response:
    form = {"source": "upload", "usernamePrefix": "imp", "log-comment": "moving in"} | fields
    if token is not None:
        form["wpEditToken"] = token
    files = {"xmlimport": ("dump.xml", data, "application/xml")} if data is not None else None
    return await client.post(URL, data=form, files=files)


async def test_refusals_and_bad_files(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    anonymous = await client.get("/wiki/Special:Import")
    assert anonymous.status_code == 200 and "Permission error" in anonymous.text
    refused = await _post(client, _dump(), None)
    assert refused.status_code == 200 and "Permission error" in refused.text
    await sign_in(wiki, client, "Alice")
    member = await _post(client, _dump(), await page_token(client))
    assert member.status_code == 200 and "Permission error" in member.text
    await sign_in(wiki, client, "Admin")
    form = await client.get("/wiki/Special:Import")
    assert form.status_code == 200 and "Upload XML data" in form.text
    assert 'enctype="multipart/form-data"' in form.text and 'name="xmlimport"' in form.text
    refused = await _post(client, _dump(), None)
    assert refused.status_code == 200 and "Loss of session data" in refused.text
    token = await page_token(client)
    cases = {
        "No import file was uploaded.": (None, {}),
        "No interwiki prefix was supplied": (_dump(), {"usernamePrefix": " "}),
        "XML import parse failure": (b"<mediawiki><page>", {}),
        "Expected '<mediawiki>' tag, got '<html>' tag.": (b"<html><script>x</script></html>", {}),
        "No pages to import.": (b"<mediawiki></mediawiki>", {}),
        "Unknown import source type": (_dump(), {"source": "interwiki"}),
        "Wrong option: Given root page is an invalid title.": (
            _dump(), {"mapping": "subpage", "rootpage": "Bad|root"}),
        'Wrong option: Namespace "(Main)" of the root page does not allow subpages.': (
            _dump(), {"mapping": "subpage", "rootpage": "Main Page"}),
    }  # fmt: skip
    for text, (data, fields) in cases.items():
        answer = await _post(client, data, token, **fields)
        # SpecialImport shows the form again with "Import failed", at 200.
        assert answer.status_code == 200, text
        assert text in unescape(answer.text), (text, answer.text[-2000:])
        assert "<script>x" not in answer.text
    assert (await client.get("/wiki/Imported_%22quoted%22_%26amp")).status_code == 404


async def test_import_an_export(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await sign_in(wiki, client, "Admin")
    token = await page_token(client)
    done = await _post(client, _dump(), token, assignKnownUsers="1", **{"log-comment": HOSTILE})
    assert done.status_code == 200, done.text
    text = done.text
    assert "Importing pages..." in text and "Import finished!" in text
    assert (
        'title="Imported &#34;quoted&#34; &amp;">Imported &#34;quoted&#34; &amp;</a> 2 revisions</li>'
        in text
    )
    assert "was not imported because the name to which it would be imported is invalid" in text
    assert "<script>alert(2)" not in text
    history = (await client.get('/w/index.php?title=Imported_"quoted"_%26amp&action=history')).text
    assert "imp&gt;Stranger" in history and ">Alice<" in history
    assert "2 revisions imported" in history
    assert "<script>alert(2)" not in history and "&lt;script&gt;alert(2)" in history
    raw = await client.get('/w/index.php?title=Imported_"quoted"_%26amp&action=raw')
    assert raw.text == "second text"
    log = (await client.get("/wiki/Special:Log/import")).text
    assert "by file upload" in log and "2 revisions" in log and "<script>alert(2)" not in log
    again = await _post(client, _dump(), token)
    assert again.status_code == 200
    assert "No revisions imported" in again.text and " 2 revisions</li>" not in again.text
    # The same pages again, into one namespace and as subpages of a root page.
    help_ns = await _post(client, _dump(), token, mapping="namespace", namespace="12")
    assert help_ns.status_code == 200 and "Help:Nope" in help_ns.text
    raw = await client.get('/w/index.php?title=Help:Imported_"quoted"_%26amp&action=raw')
    assert raw.status_code == 200 and raw.text == "second text"
    under = await _post(client, _dump(), token, mapping="subpage", rootpage="User:Admin/Imports/")
    assert under.status_code == 200 and "</a> 2 revisions</li>" in under.text
    raw = await client.get(
        '/w/index.php?title=User:Admin/Imports/Imported_"quoted"_%26amp&action=raw'
    )
    assert raw.status_code == 200 and raw.text == "second text"
