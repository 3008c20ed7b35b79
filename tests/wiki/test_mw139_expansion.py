"""Templates expand as MediaWiki 1.39 expands them (`data/mw139_expansion_cases.json`, recorded
by tools/capture_expansion_cases.py): an argument is expanded only when the template uses it, in
the caller's frame, so a template's output is never read again as markup, `{{!}}` in an argument
stays a character, a missing or argument-less template's arguments are never expanded (nor listed
as used); comments in arguments go; extension tags with attributes keep their content. The limit
report counts nodes, depth and sizes as MediaWiki's does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

RECORDED = json.loads((Path(__file__).parent / "data" / "mw139_expansion_cases.json").read_text())
TITLE = "Xp page"


async def _ours(wiki: WikiHarness, client: httpx.AsyncClient, case: dict[str, Any]) -> Any:
    comments = {"includecomments": "1"} if case["includecomments"] else {}
    expanded = await wiki.api(
        client, action="expandtemplates", title=TITLE, text=case["text"], prop="wikitext",
        formatversion="2", **comments,
    )  # fmt: skip
    parsed = await wiki.api(
        client, action="parse", title=TITLE, text=case["text"], contentmodel="wikitext",
        prop="limitreportdata|templates", formatversion="2",
    )  # fmt: skip
    report = {e["name"]: e["0"] for e in parsed["parse"]["limitreportdata"]}
    return {
        "text": case["text"],
        "includecomments": case["includecomments"],
        "wikitext": expanded["expandtemplates"]["wikitext"],
        "templates": sorted(t["title"] for t in parsed["parse"]["templates"]),
        "visited": report["limitreport-ppvisitednodes"],
        "depth": report["limitreport-expansiondepth"],
        "postexpand": report["limitreport-postexpandincludesize"],
        "argsize": report["limitreport-templateargumentsize"],
    }


async def test_expansion_as_mediawiki(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    for title, text in RECORDED["templates"].items():
        await wiki.edit_page(title, text)
    differing = []
    for case in RECORDED["cases"]:
        ours = await _ours(wiki, client, case)
        if ours != case:
            differing.append({"ours": ours, "mediawiki": case})
    assert differing == []


async def test_page_names_are_text(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """`{{PAGENAME}}` and friends give the name escaped as wfEscapeWikiText escapes it, so that
    a name with `'`, `;` or `=` reads as itself wherever the word is used."""
    for title, recorded in RECORDED["names"].items():
        data = await wiki.api(
            client, action="expandtemplates", title=title, text=RECORDED["name_words"],
            prop="wikitext", formatversion="2",
        )  # fmt: skip
        assert data["expandtemplates"]["wikitext"] == recorded, title


async def test_sort_keys_read_references(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """The default sort key stays escaped in the page property, and both it and a written sort
    key are read (their references decoded) as the categories' sort key prefixes."""
    recorded = RECORDED["sorted"]
    await wiki.edit_page(recorded["title"], recorded["text"])
    for category, prefixes in recorded["sortkeyprefixes"].items():
        data = await wiki.api(
            client, action="query", list="categorymembers", cmtitle=category,
            cmprop="title|sortkeyprefix", formatversion="2",
        )  # fmt: skip
        members = data["query"]["categorymembers"]
        assert [m["sortkeyprefix"] for m in members if m["title"] == recorded["title"]] == prefixes
    data = await wiki.api(
        client, action="query", prop="pageprops", titles=recorded["title"], formatversion="2"
    )
    assert data["query"]["pages"][0]["pageprops"]["defaultsort"] == recorded["defaultsort"]


async def test_link_tables_as_mediawiki(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """The links, categories, external links and images action=parse lists are read from the
    page as the preprocessor reads it: not from `<includeonly>` parts, comments, `<pre>` or
    `<nowiki>`, nor from an argument the template never uses; links nested in a file's caption
    count, a free URL ends before trailing punctuation, a sort key's references are decoded."""
    for title, text in RECORDED["templates"].items():
        await wiki.edit_page(title, text)
    differing = []
    for case in RECORDED["links"]:
        data = await wiki.api(
            client, action="parse", title=TITLE, text=case["text"], contentmodel="wikitext",
            prop="links|categories|externallinks|images", formatversion="2",
        )  # fmt: skip
        parsed = data["parse"]
        ours = {
            "text": case["text"],
            "links": sorted(link["title"] for link in parsed["links"]),
            "categories": sorted([c["category"], c["sortkey"]] for c in parsed["categories"]),
            "externallinks": sorted(parsed["externallinks"]),
            "images": sorted(parsed["images"]),
        }
        if ours != case:
            differing.append({"ours": ours, "mediawiki": case})
    assert differing == []
