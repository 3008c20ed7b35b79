"""action=parse: given text, pages, old revisions, sections, PST, props in both formatversions,
and MediaWiki's errors for bad input."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


async def test_text_with_variables_functions_and_templates(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Template:Greet", "{{{greeting|Hello}}} {{{1|world}}}!")
    text = (
        "Say: {{Greet|you}} {{plural:1|one|many}} or {{plural:2|one|many}}; "
        "{{ns:1}}, {{ns:2}}; {{uc:Foo}} or {{lc:Foo}}; {{PAGENAMEE}}"
    )
    data = await wiki.api(client, action="parse", title="Some page", text=text, prop="text")
    body = data["parse"]["text"]["*"]
    assert "Say: Hello you! one or many; Talk, User; FOO or foo; Some_page" in body
    assert data["parse"]["title"] == "Some page"
    assert data["parse"]["pageid"] == 0


async def test_page_and_oldid_know_their_revision(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    first = await wiki.edit_page("Saved", "This is {{REVISIONID}} by {{REVISIONUSER}}", "Alice")
    second = await wiki.edit_page("Saved", "second ''text''")
    data = await wiki.api(client, action="parse", page="Saved", prop="text|revid")
    assert data["parse"]["revid"] == second
    assert "second <i>text</i>" in data["parse"]["text"]["*"]
    data = await wiki.api(client, action="parse", oldid=str(first), prop="text|revid")
    assert f"This is {first} by Alice" in data["parse"]["text"]["*"]
    data = await wiki.api(
        client, action="parse", title="Saved", text="{{REVISIONID}}", revid=str(first), prop="text"
    )
    assert f"<p>{first}\n</p>" in data["parse"]["text"]["*"]


async def test_props_in_both_formatversions(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Exists", "x")
    await wiki.edit_page("Category:Known", "a category")
    text = (
        "[[Exists]] [[Missing]] [[Category:Known|key]] [[Category:Unknown]] http://e.example "
        "[[fr:Page]]\n== One ==\nx\n=== Two ===\ny"
    )
    props = (
        "text|links|categories|externallinks|langlinks|sections|displaytitle|wikitext|properties"
    )
    one = (await wiki.api(client, action="parse", title="P", text=text, prop=props))["parse"]
    assert one["links"] == [{"ns": 0, "exists": "", "*": "Exists"}, {"ns": 0, "*": "Missing"}]
    assert one["categories"] == [
        {"sortkey": "key", "*": "Known"},
        {"sortkey": "", "*": "Unknown", "missing": ""},
    ]
    assert one["externallinks"] == ["http://e.example"]
    assert one["langlinks"][0]["lang"] == "fr"
    assert one["langlinks"][0]["*"] == "Page"
    assert [(s["line"], s["number"], s["level"], s["index"]) for s in one["sections"]] == [
        ("One", "1", "2", "1"),
        ("Two", "1.1", "3", "2"),
    ]
    assert one["sections"][0]["byteoffset"] == text.index("== One")
    assert one["displaytitle"] == '<span class="mw-page-title-main">P</span>'
    assert one["wikitext"] == {"*": text}
    assert one["properties"] == []
    assert 'class="mw-editsection"' in one["text"]["*"]
    two = (
        await wiki.api(client, action="parse", title="P", text=text, prop=props, formatversion="2")
    )["parse"]
    assert two["links"][0] == {"ns": 0, "title": "Exists", "exists": True}
    assert two["categories"][1] == {"sortkey": "", "category": "Unknown", "missing": True}
    assert two["text"].startswith('<div class="mw-parser-output">')
    assert two["showtoc"] is False
    assert two["wikitext"] == text
    assert two["properties"] == {}


async def test_output_switches(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    text = "__FORCETOC__\n== One ==\n== Two =="
    data = await wiki.api(client, action="parse", title="T", text=text, prop="text")
    assert 'id="toc"' in data["parse"]["text"]["*"]
    data = await wiki.api(
        client,
        action="parse",
        title="T",
        text=text,
        prop="text",
        disabletoc="1",
        disableeditsection="1",
        wrapoutputclass="wrap",
    )
    body = data["parse"]["text"]["*"]
    assert 'id="toc"' not in body and "mw-editsection" not in body
    assert body.startswith('<div class="wrap">')
    data = await wiki.api(client, action="parse", text="a{b}", contentmodel="css", prop="text")
    assert '<pre class="mw-code mw-css" dir="ltr">\na{b}\n</pre>' in data["parse"]["text"]["*"]


async def test_section_pst_and_summary(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    text = "lead\n== A ==\na\n=== A1 ===\na1\n== B ==\nb"
    data = await wiki.api(client, action="parse", title="S", text=text, section="1", prop="text")
    body = data["parse"]["text"]["*"]
    assert "a1" in body and "lead" not in body and ">b\n" not in body
    data = await wiki.api(
        client, action="parse", title="S", text="[[Target|]] ~~~", onlypst="1", summary="[[S]]"
    )
    assert data["parse"]["text"]["*"].startswith(
        "[[Target|Target]] [[Special:Contributions/127.0.0.1|"
    )
    assert 'title="S (page does not exist)"' in data["parse"]["parsedsummary"]["*"]


async def test_redirects(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Goal", "the goal")
    await wiki.edit_page("Shortcut", "#REDIRECT [[Goal]]")
    data = await wiki.api(client, action="parse", page="Shortcut", redirects="1", prop="text")
    assert data["parse"]["title"] == "Goal"
    assert data["parse"]["redirects"] == [{"from": "Shortcut", "to": "Goal"}]
    assert "the goal" in data["parse"]["text"]["*"]


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"page": "No such page"}, "missingtitle"),
        ({"page": "X", "text": "y"}, "invalidparammix"),
        ({"pageid": "999999"}, "nosuchpageid"),
        ({"oldid": "999999"}, "nosuchrevid"),
        ({"text": "x", "section": "abc"}, "invalidsection"),
        ({"text": "x", "section": "4"}, "nosuchsection"),
        ({"title": "Bad[[title", "text": "x"}, "invalidtitle"),
        ({"text": "x", "prop": "nonsense"}, None),
        ({"text": "x", "contentmodel": "nonsense"}, "badvalue"),
    ],
)
async def test_bad_input(
    wiki: WikiHarness, client: httpx.AsyncClient, params: dict[str, str], code: str | None
) -> None:
    data = await wiki.api(client, action="parse", **params)
    if code is None:
        assert "prop" in data["warnings"]["parse"]["*"] or "nonsense" in str(data["warnings"])
    else:
        assert data["error"]["code"] == code, data


async def test_paraminfo_comes_from_the_declaration(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    data = await wiki.api(client, action="paraminfo", modules="parse", formatversion="2")
    module = data["paraminfo"]["modules"][0]
    assert module["classname"] == "ApiParse"
    names = [p["name"] for p in module["parameters"]]
    assert names[:4] == ["title", "text", "revid", "summary"]
    prop = next(p for p in module["parameters"] if p["name"] == "prop")
    assert "limitreportdata" in prop["type"] and prop["deprecatedvalues"] == ["headitems"]
