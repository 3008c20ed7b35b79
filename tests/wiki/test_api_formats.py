"""The output formats beside JSON (`xml`, `xmlfm`, `php`, `phpfm`, `rawfm`, `none`): the XML of
the reference requests has the elements and attributes MediaWiki 1.39's has
(`data/mw139_xml_format.json`), every module's answer in every format parses, and paraminfo
lists the formats."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl
from xml.etree import ElementTree

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.seed import seed
from tests.wiki.snapshots import snapshot_wiki

from atrium.wiki.api.formats import xml

pytestmark = pytest.mark.anyio


wiki = snapshot_wiki("reference", seed, "reference")


@pytest.fixture
async def reference(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")  # as `seed` leaves its client


RECORDED = json.loads((Path(__file__).parent / "data" / "mw139_xml_format.json").read_text())
# What every action and query module answers to, anonymously, in one request each.
REQUESTS = [
    {"action": "query", "list": "allpages|allcategories|alllinks|recentchanges|logevents"},
    {"action": "query", "meta": "siteinfo|userinfo|tokens|allmessages", "ammessages": "and",
     "siprop": "general|namespaces|namespacealiases|interwikimap|statistics|usergroups"},
    {"action": "query", "titles": "Apple|Banana|Nope|[x]", "prop": "info|revisions|links|"
     "categories|templates|pageprops|extlinks|images", "rvprop": "ids|content", "rvslots": "*"},
    # Without the limit report: it carries each parse's own timings.
    {"action": "parse", "page": "Apple", "disablelimitreport": "1"},
    {"action": "compare", "fromtitle": "Apple", "totitle": "Banana"},
    {"action": "expandtemplates", "text": "{{Stub}}", "prop": "wikitext"},
    {"action": "paraminfo", "modules": "query+allpages|edit"},
    {"action": "query", "list": "nosuchlist"},
    {"action": "edit", "title": "X"},
]  # fmt: skip


def _shape(document: str) -> set[tuple[str, tuple[str, ...]]]:
    """(path of tags, attribute names) of every element; flags (empty attributes: `new`,
    `redirect`…) say what the two wikis' pages are, not how they are written, and are left out."""
    root = ElementTree.fromstring(document.encode())
    found: set[tuple[str, tuple[str, ...]]] = set()

    def walk(element: ElementTree.Element, path: str) -> None:
        here = f"{path}/{element.tag}"
        names = [k for k, v in element.attrib.items() if v != "" or k == "batchcomplete"]
        found.add((here, tuple(sorted(names))))
        for child in element:
            walk(child, here)

    walk(root, "")
    return found


@pytest.mark.usefixtures("reference")
async def test_xml_as_mediawiki(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.post(client, action="logout", token=await wiki.csrf(client))
    differing = {}
    for name, case in RECORDED.items():
        if name.startswith("_"):
            continue
        params = dict(parse_qsl(case["request"], keep_blank_values=True))
        answer = await client.get("/w/api.php", params={**params, "format": "xml"})
        assert answer.headers["content-type"] == "text/xml; charset=utf-8"
        assert answer.text.startswith('<?xml version="1.0"?><api')
        if _shape(answer.text) != _shape(case["xml"]):
            differing[name] = (
                sorted(_shape(answer.text) - _shape(case["xml"])),
                sorted(_shape(case["xml"]) - _shape(answer.text)),
            )
    assert not differing, json.dumps(differing, indent=1)
    error = await client.get("/w/api.php", params={"action": "query", "list": "allpages",
                                                    "aplimit": "bad", "format": "xml"})  # fmt: skip
    recorded = RECORDED["error"]["xml"]
    assert re.sub(r">See .*?</error>", "", error.text) == re.sub(r">See .*?</error>", "", recorded)


@pytest.mark.usefixtures("reference")
async def test_every_format_parses(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    for params in REQUESTS:
        as_json = await wiki.api(client, **params)
        as_xml = await client.get("/w/api.php", params={**params, "format": "xml"})
        assert as_xml.text.startswith("<?xml"), (params, as_xml.text[:300])
        ElementTree.fromstring(as_xml.content)
        pretty = await client.get("/w/api.php", params={**params, "format": "xmlfm"})
        shown = re.search(r'<pre class="api-pretty-content">(.*)</pre>', pretty.text, re.S)
        assert shown is not None
        ElementTree.fromstring(html.unescape(shown.group(1)).encode())
        as_php = await client.get("/w/api.php", params={**params, "format": "php"})
        assert as_php.headers["content-type"].startswith("application/vnd.php.serialized")
        assert _steady(_unserialize(as_php.text)) == _steady(_php_view(as_json))
        none = await client.get("/w/api.php", params={**params, "format": "none"})
        assert none.content == b""
        raw = await client.get("/w/api.php", params={**params, "format": "rawfm"})
        assert raw.headers["content-type"].startswith("text/html")
        assert "<script" not in raw.text.split("<pre", 1)[1].split("</pre>")[0]


@pytest.mark.usefixtures("reference")
async def test_php_and_paraminfo(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    answer = await client.get(
        "/w/api.php",
        params={"action": "query", "list": "allpages", "aplimit": "1", "format": "php",
                "formatversion": "2"},
    )  # fmt: skip
    recorded = (
        'a:3:{s:13:"batchcomplete";b:1;s:8:"continue";a:2:{s:10:"apcontinue";s:6:"Banana";'
        's:8:"continue";s:3:"-||";}s:5:"query";a:1:{s:8:"allpages";a:1:{i:0;a:3:{s:6:"pageid";'
        'i:ID;s:2:"ns";i:0;s:5:"title";s:5:"Apple";}}}}'
    )
    assert re.sub(r'"pageid";i:\d+', '"pageid";i:ID', answer.text) == recorded
    info = await wiki.api(
        client, action="paraminfo", modules="main|xml|php|none|rawfm|xmlfm", formatversion="2"
    )
    modules = {m["name"]: m for m in info["paraminfo"]["modules"]}
    main = {p["name"]: p for p in modules["main"]["parameters"]}
    assert main["format"]["type"] == [
        "json", "jsonfm", "none", "php", "phpfm", "rawfm", "xml", "xmlfm",
    ]  # fmt: skip
    assert [p["name"] for p in modules["xmlfm"]["parameters"]] == [
        "wrappedhtml", "xslt", "includexmlnamespace",
    ]  # fmt: skip
    assert modules["php"]["classname"] == "ApiFormatPhp"


# What two requests may read apart: siteinfo's clock, and tokens (which carry the time).
_CLOCKED = {"time", "csrftoken"}


def _steady(value: Any) -> Any:
    """The answer without what depends on the second it was made in."""
    if isinstance(value, dict):
        return {k: _steady(v) for k, v in value.items() if k not in _CLOCKED}
    return value


def _php_view(value: Any) -> Any:
    """A JSON answer as PHP keys it: integer-like keys as integers, lists keyed 0, 1, …"""
    if isinstance(value, list):
        return {i: _php_view(v) for i, v in enumerate(value)}
    if isinstance(value, dict):
        return {
            (int(k) if re.fullmatch(r"-?(0|[1-9][0-9]*)", k) else k): _php_view(v)
            for k, v in value.items()
        }
    return value


def _unserialize(text: str) -> Any:
    """A small reader of PHP's serialize() output, for the test alone."""
    data = text.encode()
    value, end = _read(data, 0)
    assert end == len(data)
    return value


def _read(data: bytes, at: int) -> tuple[Any, int]:
    kind = chr(data[at])
    if kind == "N":
        return None, at + 2
    head_end = data.index(b":", at + 2) if kind in "sa" else data.index(b";", at)
    if kind in "bid":
        raw = data[at + 2 : head_end].decode()
        value: Any = {"b": lambda r: r == "1", "i": int, "d": float}[kind](raw)
        return value, head_end + 1
    length = int(data[at + 2 : head_end])
    if kind == "s":
        start = head_end + 2
        return data[start : start + length].decode(), start + length + 2
    at = head_end + 2
    out: dict[Any, Any] = {}
    for _ in range(length):
        key, at = _read(data, at)
        out[key], at = _read(data, at)
    return out, at + 1


@pytest.mark.usefixtures("reference")
async def test_opensearch_xml(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """ApiOpenSearch's own formats: the Suggestions XML (redirects resolved by default there),
    and no PHP."""
    for case in RECORDED["_opensearch"].values():
        params = dict(parse_qsl(case["request"]))
        answer = await client.get("/w/api.php", params={**params, "format": "xml"})
        mine = answer.text.replace("http://127.0.0.1:8080/", "http://127.0.0.1:8191/")
        assert mine == case["xml"]
    refused = await client.get(
        "/w/api.php", params={"action": "opensearch", "search": "App", "format": "php"}
    )
    error = _unserialize(refused.text)["error"]
    wanted = _unserialize(RECORDED["_opensearch_php_error"]["php"])["error"]
    assert (error["code"], error["info"]) == (wanted["code"], wanted["info"])


async def test_action_modules_xml_as_mediawiki(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """The recorded actions (edit, protect, watch, purge, move, delete, options), replayed in
    order as Admin, answer in MediaWiki 1.39's XML layout."""
    await seed(wiki, client)
    differing = {}
    for case in RECORDED["_actions"]:
        params = {**case["params"], "format": "xml"}
        if case["token"]:
            tokens = await wiki.api(client, action="query", meta="tokens", type=case["token"])
            params["token"] = tokens["query"]["tokens"][f"{case['token']}token"]
        if case["method"] == "POST":
            answer = await client.post("/w/api.php", data=params)
        else:
            answer = await client.get("/w/api.php", params=params)
        if _shape(answer.text) != _shape(case["xml"]):
            differing[case["name"]] = (
                sorted(_shape(answer.text) - _shape(case["xml"])),
                sorted(_shape(case["xml"]) - _shape(answer.text)),
            )
    assert not differing, json.dumps(differing, indent=1)


def test_xml_text_details() -> None:
    """What a layout comparison does not see, as ApiFormatXml writes it: empty text as a short
    tag, both quotes escaped in attributes, text beside elements in an element named `_.2A.`,
    names that are no XML names mangled, members MediaWiki writes as elements."""
    written = xml({"a": {"title": "it's \"x\"", "*": ""}, "b": {"*": "t", "c": [1]},
                   "expandtemplates": {"wikitext": "w", "x y": "1", "_z": "2"}})  # fmt: skip
    assert written == (
        '<?xml version="1.0"?><api><a title="it&#039;s &quot;x&quot;" xml:space="preserve" />'
        '<b><c><_v>1</_v></c><_.2A. xml:space="preserve">t</_.2A.></b>'
        '<expandtemplates _x.20.y="1" __z="2"><wikitext xml:space="preserve">w</wikitext>'
        "</expandtemplates></api>"
    )


async def test_xmlfm_as_mediawiki(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """xmlfm shows the XML indented by two spaces an element, each on a line of its own, with
    `&` and `<` escaped as MediaWiki 1.39 shows it (page ids aside)."""
    await seed(wiki, client)
    case = RECORDED["_xmlfm"]
    page = await client.get("/w/api.php", params=dict(parse_qsl(case["request"])))
    shown = page.text.split('<pre class="api-pretty-content">', 1)[1].split("</pre>", 1)[0]
    assert re.sub(r'pageid="\d+"', 'pageid=""', shown) == re.sub(
        r'pageid="\d+"', 'pageid=""', case["pre"]
    )
