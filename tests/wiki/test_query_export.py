"""`action=query` with `export`/`exportnowrap`/`exportschema` (and the importer reading both
schemas), `iwurl` and `converttitles`, as MediaWiki 1.39 answers them."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import httpx
import pytest
from tests.reference import reference_path
from tests.wiki.conftest import WikiHarness

from atrium.wiki.dump import export_dump, import_dump

pytestmark = pytest.mark.anyio

SAMPLES = reference_path("mediawiki-samples")
MW_HOST = "http://127.0.0.1:8181/w/api.php"
OUR_HOST = "http://127.0.0.1:8080/w/api.php"
NS = "{http://www.mediawiki.org/xml/export-0.11/}"


def _sample(name: str) -> tuple[dict[str, Any], Any]:
    case = json.loads((SAMPLES / "_index.json").read_text())[name]
    body = json.loads((SAMPLES / f"{name}.json").read_text().replace(MW_HOST, OUR_HOST))
    return case, body


# --- export ------------------------------------------------------------------------------------


async def test_export_in_both_formatversions(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Apple", "first [[Banana]]", summary="one")
    second = await wiki.edit_page("Apple", "second & <b>", user="Alice", summary="two")
    fv1 = await wiki.api(client, action="query", titles="Apple|Nope", export="1")
    xml = fv1["query"]["export"]["*"]
    fv2 = await wiki.api(client, action="query", titles="Apple|Nope", export="1", formatversion="2")
    assert fv2["query"]["export"] == xml
    assert len(fv2["query"]["pages"]) == 2  # the page set is still there
    root = ET.fromstring(xml)
    assert root.attrib["version"] == "0.11"
    pages = root.findall(f"{NS}page")
    assert [p.findtext(f"{NS}title") for p in pages] == ["Apple"]  # missing pages are not
    revisions = pages[0].findall(f"{NS}revision")
    assert len(revisions) == 1  # the current revision only, as WikiExporter::CURRENT
    rev = revisions[0]
    assert rev.findtext(f"{NS}id") == str(second)
    assert rev.findtext(f"{NS}origin") == str(second)
    text = rev.find(f"{NS}text")
    assert text is not None and text.text == "second & <b>"
    assert text.attrib["sha1"] == rev.findtext(f"{NS}sha1")
    assert text.attrib["bytes"] == str(len(b"second & <b>"))


async def test_exportschema_010_and_exportnowrap(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Apple", "text")
    response = await client.get(
        "/w/api.php",
        params={
            "action": "query",
            "titles": "Apple",
            "export": "1",
            "exportnowrap": "1",
            "exportschema": "0.10",
            "format": "json",
        },
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/xml; charset=utf-8"
    assert response.headers["content-disposition"] == "inline; filename=export.xml"
    assert response.text.startswith('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/"')
    assert "<origin>" not in response.text
    assert 'sha1="' not in response.text  # 0.10 has no sha1 attribute on <text>
    assert "<sha1>" in response.text
    # exportnowrap without export is ignored: an ordinary JSON answer.
    plain = await wiki.api(client, action="query", titles="Apple", exportnowrap="1")
    assert "export" not in plain["query"] and plain["query"]["pages"]
    bad = await wiki.api(client, action="query", titles="Apple", export="1", exportschema="0.9")
    assert bad["error"]["code"] == "badvalue"


async def test_import_accepts_schema_010_and_011(wiki: WikiHarness) -> None:
    await wiki.edit_page("Apple", "one")
    await wiki.edit_page("Apple", "two [[Banana]]", user="Alice")
    dumps = {}
    for schema in ("0.10", "0.11"):
        out = io.StringIO()
        assert export_dump(wiki.db, wiki.site, out, schema=schema) == 1
        dumps[schema] = out.getvalue()
    assert "<origin>" in dumps["0.11"] and "<origin>" not in dumps["0.10"]
    for schema, dump in dumps.items():
        renamed = dump.replace("<title>Apple</title>", f"<title>Apple {schema}</title>")
        renamed = re.sub(r"<id>\d+</id>\n    <revision>", "<id>0</id>\n    <revision>", renamed)
        stats = import_dump(wiki.db, wiki.site, io.BytesIO(renamed.encode()))
        assert (stats.pages, stats.revisions) == (1, 2), schema
    async with wiki.client() as client:
        data = await wiki.api(
            client,
            action="query",
            prop="revisions",
            rvprop="content",
            rvslots="main",
            titles="Apple 0.10|Apple 0.11",
            formatversion="2",
        )
    texts = {
        p["title"]: p["revisions"][0]["slots"]["main"]["content"] for p in data["query"]["pages"]
    }
    assert texts == {"Apple 0.10": "two [[Banana]]", "Apple 0.11": "two [[Banana]]"}


# --- iwurl, converttitles ----------------------------------------------------------------------


async def test_iwurl_and_converttitles(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Apple", "text")
    without = await wiki.api(client, action="query", titles="fr:Foo bar|Apple", formatversion="2")
    assert without["query"]["interwiki"] == [{"title": "fr:Foo bar", "iw": "fr"}]
    data = await wiki.api(
        client, action="query", titles="fr:Foo bar/é|Apple", iwurl="1", formatversion="2"
    )
    assert data["query"]["interwiki"] == [
        {
            "title": "fr:Foo bar/é",
            "iw": "fr",
            "url": "https://fr.wikipedia.org/wiki/Foo_bar/%C3%A9",
        }
    ]
    plain = await wiki.api(client, action="query", titles="apple", formatversion="2")
    converted = await wiki.api(
        client, action="query", titles="apple", converttitles="1", formatversion="2"
    )
    assert converted == plain  # English has no variants: nothing converted, no warning
    assert "converted" not in converted["query"]
