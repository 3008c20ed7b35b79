"""action=parse's result as a whole: every `prop` in the order MediaWiki adds them, the props that
are always empty, a redirect's fragment, and `section=new` with the pre-save transform."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

ALL_PROPS = (
    "properties|wikitext|iwlinks|indicators|encodedjsconfigvars|jsconfigvars|modules|headhtml|"
    "subtitle|displaytitle|parsewarningshtml|parsewarnings|sections|externallinks|images|"
    "templates|links|limitreporthtml|limitreportdata|categorieshtml|categories|langlinks|text|revid"
)
ORDER = [
    "title",
    "pageid",
    "revid",
    "text",
    "langlinks",
    "categories",
    "categorieshtml",
    "limitreportdata",
    "limitreporthtml",
    "links",
    "templates",
    "images",
    "externallinks",
    "sections",
    "parsewarnings",
    "parsewarningshtml",
    "displaytitle",
    "subtitle",
    "headhtml",
    "modules",
    "modulescripts",
    "modulestyles",
    "jsconfigvars",
    "encodedjsconfigvars",
    "indicators",
    "iwlinks",
    "wikitext",
    "properties",
]


@pytest.mark.parametrize("fv", ["1", "2"])
async def test_every_prop_in_mediawikis_order(
    wiki: WikiHarness, client: httpx.AsyncClient, fv: str
) -> None:
    rev = await wiki.edit_page("Whole", "Some [[link]] text")
    data = await wiki.api(client, action="parse", page="Whole", prop=ALL_PROPS, formatversion=fv)
    parse = data["parse"]
    # formatversion 2 always says whether there is a table of contents; 1 only when there is one.
    order = ORDER if fv == "1" else [*ORDER[:14], "showtoc", *ORDER[14:]]
    assert list(parse) == order
    assert parse["revid"] == rev
    assert parse["parsewarnings"] == parse["parsewarningshtml"] == []
    assert parse["modules"] == parse["modulescripts"] == parse["modulestyles"] == []
    assert parse["subtitle"] == ""
    assert parse["jsconfigvars"] == {}
    assert parse["encodedjsconfigvars"] == "{}"
    assert parse["indicators"] == ([] if fv == "1" else {})
    head = parse["headhtml"]["*"] if fv == "1" else parse["headhtml"]
    assert head.startswith("<!DOCTYPE html>") and "<title>Whole - " in head


async def test_redirect_keeps_its_fragment(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Aim", "== Part ==\nthere")
    await wiki.edit_page("Jump", "#REDIRECT [[Aim#Part]]")
    data = await wiki.api(client, action="parse", page="Jump", redirects="1", prop="revid")
    assert data["parse"]["title"] == "Aim"
    assert data["parse"]["redirects"] == [{"from": "Jump", "to": "Aim", "tofragment": "Part"}]
    assert "revid" in data["parse"]


async def test_new_section_with_pst_returns_the_transformed_text(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    data = await wiki.api(
        client,
        action="parse",
        title="Talk:Topic",
        text="hello ~~~",
        section="new",
        sectiontitle="Question",
        pst="1",
        contentmodel="wikitext",
        prop="wikitext",
        formatversion="2",
    )
    parse = data["parse"]
    assert parse["wikitext"] == parse["psttext"]
    assert parse["wikitext"].startswith("== Question ==\n\nhello ")
    assert "~~~" not in parse["wikitext"]
