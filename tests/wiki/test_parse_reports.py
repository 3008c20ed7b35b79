"""action=parse's `categorieshtml`, `limitreportdata`, `limitreporthtml` and `parsetree` in
MediaWiki 1.39's shapes (formatversion 1 and 2), and `notwikitext` for a parse tree of other
content."""

from __future__ import annotations

import re

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

TEXT = (
    "[[Category:Secret]] [[Category:Known|k]] [[Category:Nope]] "
    "{{Greet|you|name=Bob}} {{Greet}} <nowiki>abc</nowiki>"
)


async def _setup(wiki: WikiHarness) -> None:
    await wiki.edit_page("Category:Secret", "__HIDDENCAT__")
    await wiki.edit_page("Category:Known", "x")
    await wiki.edit_page("Template:Greet", "Hello {{{1|world}}} {{{name|}}}!")


async def test_categorieshtml(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await _setup(wiki)
    data = await wiki.api(
        client, action="parse", title="Y", text=TEXT, prop="categorieshtml", formatversion="2"
    )
    assert data["parse"]["categorieshtml"] == (
        '<div id="catlinks" class="catlinks" data-mw="interface">'
        '<div id="mw-normal-catlinks" class="mw-normal-catlinks">'
        '<a href="/wiki/Special:Categories" title="Special:Categories">Categories</a>: <ul>'
        '<li><a href="/wiki/Category:Known" title="Category:Known">Known</a></li>'
        '<li><a href="/w/index.php?title=Category:Nope&amp;action=edit&amp;redlink=1" '
        'class="new" title="Category:Nope (page does not exist)">Nope</a></li></ul></div>'
        '<div id="mw-hidden-catlinks" class="mw-hidden-catlinks mw-hidden-cats-hidden">'
        'Hidden category: <ul><li><a href="/wiki/Category:Secret" title="Category:Secret">'
        "Secret</a></li></ul></div></div>"
    )
    data = await wiki.api(client, action="parse", title="Y", text="x", prop="categorieshtml")
    assert data["parse"]["categorieshtml"] == {
        "*": '<div id="catlinks" class="catlinks catlinks-allhidden" data-mw="interface"></div>'
    }


async def test_limitreportdata(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await _setup(wiki)
    data = await wiki.api(
        client, action="parse", title="Y", text=TEXT, prop="limitreportdata", formatversion="2"
    )
    entries = {e["name"]: e for e in data["parse"]["limitreportdata"]}
    assert list(entries) == [
        "limitreport-cputime",
        "limitreport-walltime",
        "limitreport-ppvisitednodes",
        "limitreport-postexpandincludesize",
        "limitreport-templateargumentsize",
        "limitreport-expansiondepth",
        "limitreport-expensivefunctioncount",
        "limitreport-unstrip-depth",
        "limitreport-unstrip-size",
        "limitreport-timingprofile",
        "cachereport-timestamp",
        "cachereport-ttl",
        "cachereport-transientcontent",
    ]
    assert re.fullmatch(r"\d+\.\d{3}", entries["limitreport-cputime"]["0"])
    # "Hello you Bob!" and "Hello world !"; the arguments "you" and "Bob"; the template's
    # arguments one frame below the page's.
    assert entries["limitreport-postexpandincludesize"] == {
        "name": "limitreport-postexpandincludesize",
        "0": 27,
        "1": 2097152,
    }
    assert entries["limitreport-templateargumentsize"]["0"] == 6
    assert entries["limitreport-expansiondepth"]["0"] == 3
    assert entries["limitreport-unstrip-size"]["0"] == 3
    assert entries["limitreport-ppvisitednodes"]["1"] == 1000000
    profile = entries["limitreport-timingprofile"]
    assert profile["0"].endswith("      1 -total") and profile["0"].startswith("100.00%")
    assert profile["1"].endswith("      2 Template:Greet")
    assert re.fullmatch(r"\d{14}", entries["cachereport-timestamp"]["0"])
    assert entries["cachereport-ttl"]["0"] == 86400
    assert entries["cachereport-transientcontent"] == {
        "name": "cachereport-transientcontent",
        "0": False,
    }
    one = await wiki.api(
        client, action="parse", title="Y", text="{{CURRENTTIMESTAMP}}", prop="limitreportdata"
    )
    entries = {e["name"]: e for e in one["parse"]["limitreportdata"]}
    assert entries["cachereport-ttl"]["0"] == 3600
    assert entries["cachereport-transientcontent"] == {
        "name": "cachereport-transientcontent",
        "0": "",
    }
    plain = await wiki.api(client, action="parse", title="Y", text="x", prop="limitreportdata")
    entries = {e["name"]: e for e in plain["parse"]["limitreportdata"]}
    assert entries["limitreport-ppvisitednodes"]["0"] == 1
    assert entries["limitreport-expansiondepth"]["0"] == 1
    assert entries["limitreport-timingprofile"]["0"].endswith("1 -total")
    assert "1" not in entries["limitreport-timingprofile"]


async def test_limitreporthtml(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await wiki.api(client, action="parse", title="Y", text="x", prop="limitreporthtml")
    report = data["parse"]["limitreporthtml"]["*"]
    assert report.startswith(
        '<div class="mw-limitReportExplanation"><p>Parser profiling data:\n</p></div>'
        '<div class="preview-limit-report-wrapper"><table class="preview-limit-report wikitable">'
        "<tbody><tr><th>CPU time usage</th><td>"
    )
    assert "<tr><th>Preprocessor visited node count</th><td>1/1,000,000</td></tr>" in report
    assert "<tr><th>Post-expand include size</th><td>0/2,097,152 bytes</td></tr>" in report
    assert "<tr><th>Unstrip post-expand size</th><td>0/5,000,000 bytes</td></tr>" in report
    assert report.endswith("</tbody></table></div>")


async def test_limit_report_comment(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await _setup(wiki)
    data = await wiki.api(client, action="parse", title="Y", text=TEXT, prop="text")
    text = data["parse"]["text"]["*"]
    comment = re.search(r"\n<!-- \nNewPP limit report\n(.*?)-->\n", text, re.S)
    assert comment is not None, text
    lines = comment.group(1).splitlines()
    assert re.fullmatch(r"Cached time: \d{14}", lines[0])
    assert lines[1:4] == ["Cache expiry: 86400", "Reduced expiry: false", "Complications: []"]
    assert re.fullmatch(r"CPU time usage: \d+\.\d{3} seconds", lines[4])
    # MediaWiki writes each "-" as U+2010 so that nothing in the report can end the comment.
    assert "Post\u2010expand include size: 27/2097152 bytes" in lines
    assert "Highest expansion depth: 3/100" in lines
    assert "-" not in comment.group(1)
    assert "<!--\nTransclusion expansion time report (%,ms,calls,template)\n" in text
    assert text.endswith("-->\n</div>")
    quiet = await wiki.api(
        client, action="parse", title="Y", text=TEXT, prop="text", disablelimitreport="1"
    )
    assert "<!--" not in quiet["parse"]["text"]["*"]
    # CSS and JavaScript are parsed as wikitext for their links, so 1.39 reports the limits
    # of that parse (data/mw139_contentmodel.json); JSON and plain text are not parsed.
    code = await wiki.api(
        client, action="parse", title="Y.css", text="a{}", contentmodel="css", prop="text"
    )
    assert "NewPP" in code["parse"]["text"]["*"]
    data_page = await wiki.api(
        client, action="parse", title="Y.json", text="{}", contentmodel="json", prop="text"
    )
    assert "NewPP" not in data_page["parse"]["text"]["*"]


async def test_parsetree(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await wiki.api(
        client, action="parse", title="Y", text=TEXT, prop="parsetree", formatversion="2"
    )
    assert data["parse"]["parsetree"] == (
        "<root>[[Category:Secret]] [[Category:Known|k]] [[Category:Nope]] "
        '<template><title>Greet</title><part><name index="1"/><value>you</value></part>'
        "<part><name>name</name><equals>=</equals><value>Bob</value></part></template> "
        "<template><title>Greet</title></template> "
        "<ext><name>nowiki</name><attr/><inner>abc</inner><close>&lt;/nowiki&gt;</close>"
        "</ext></root>"
    )
    await wiki.edit_page("Treed", "{{a}}")
    data = await wiki.api(client, action="parse", page="Treed", prop="parsetree")
    assert data["parse"]["parsetree"] == {"*": "<root><template><title>a</title></template></root>"}


async def test_parsetree_of_other_content_is_refused(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    data = await wiki.api(
        client, action="parse", title="Y", text="a{}", contentmodel="css", prop="parsetree"
    )
    assert data["error"]["code"] == "notwikitext"
    assert "only supported for wikitext" in data["error"]["info"]
