"""Lists over pages: watchlistraw, allcategories, alllinks / alltransclusions /
allfileusages / allredirects, pagepropnames, pageswithprop, random, protectedtitles, exturlusage,
on the reference pages plus a few more saved through the API; MediaWiki 1.39's shapes and errors,
and the paging property (every row exactly once, any limit, either direction)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.wiki.conftest import WikiHarness
from tests.wiki.seed import seed
from tests.wiki.snapshots import snapshot_wiki
from tests.wiki.test_list_journal import walk

pytestmark = pytest.mark.anyio

EXTRA = [
    ("Links page", "See http://www.example.org/a and https://docs.example.org/b and "
     "[http://other.test/x other]. __NOTOC__ [[Category:Hidden stuff]]"),
    ("Category:Hidden stuff", "__HIDDENCAT__"),
    ("Notoc page", "__NOTOC__ plain [[Apple]]"),
]  # fmt: skip


async def _pages(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """The reference pages, EXTRA, and two salted titles."""
    await seed(wiki, client)
    token = await wiki.csrf(client)
    for title, text in EXTRA:
        done = await wiki.post(client, action="edit", title=title, text=text, token=token)
        assert done["edit"]["result"] == "Success", done
    for title, level in (("Unborn", "sysop"), ("Talk:Unborn", "autoconfirmed")):
        done = await wiki.post(
            client, action="protect", title=title, protections=f"create={level}", token=token,
            reason="salted",
        )  # fmt: skip
        assert "error" not in done, done


wiki = snapshot_wiki("list-pages", _pages, "pages")


@pytest.fixture
async def pages(wiki: WikiHarness, client: httpx.AsyncClient) -> WikiHarness:
    await wiki.login(client, "Admin")  # as `_pages` leaves its client
    return wiki


async def _q(wiki: WikiHarness, client: httpx.AsyncClient, **params: Any) -> Any:
    return await wiki.api(client, action="query", formatversion="2", **params)


async def test_watchlistraw(pages: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await _q(pages, client, list="watchlistraw", wrlimit="3", wrprop="changed")
    assert data["watchlistraw"] == [
        {"ns": 0, "title": "Apple"}, {"ns": 0, "title": "Banana"}, {"ns": 0, "title": "Cherry"},
    ]  # fmt: skip
    assert data["continue"] == {"wrcontinue": "0|Filler_page_01", "continue": "-||"}
    talk = await _q(pages, client, list="watchlistraw", wrnamespace="1")
    talk_titles = [w["title"] for w in talk["watchlistraw"]]
    assert talk_titles[:3] == ["Talk:Apple", "Talk:Banana", "Talk:Cherry"]
    window = await _q(
        pages, client, list="watchlistraw", wrfromtitle="Filler page 14", wrtotitle="Main Page",
    )  # fmt: skip
    assert [w["title"] for w in window["watchlistraw"]] == [
        "Filler page 14", "Filler page 15", "Links page", "Main Page",
    ]  # fmt: skip
    back = await _q(pages, client, list="watchlistraw", wrdir="descending", wrlimit="1")
    assert back["watchlistraw"] == [{"ns": 15, "title": "Category talk:Hidden stuff"}]
    assert "query" not in back  # MediaWiki puts the list beside `query`, not in it
    unchanged = await _q(pages, client, list="watchlistraw", wrshow="changed")
    assert unchanged["watchlistraw"] == []
    async with pages.client() as alice:
        await pages.login(alice, "Alice")
        token = await pages.csrf(alice)
        await pages.post(alice, action="edit", title="Apple", appendtext=" x", token=token)
    changed = await _q(pages, client, list="watchlistraw", wrshow="changed", wrprop="changed")
    (apple,) = changed["watchlistraw"]
    assert apple["title"] == "Apple" and apple["changed"].endswith("Z")
    conflict = await _q(pages, client, list="watchlistraw", wrshow="changed|!changed")
    assert conflict["error"]["code"] == "show"
    async with pages.client() as anon:
        refused = await _q(pages, anon, list="watchlistraw")
        assert refused["error"]["code"] == "notloggedin"
    gen = await _q(pages, client, generator="watchlistraw", gwrlimit="2")
    assert [p["title"] for p in gen["query"]["pages"]] == ["Apple", "Banana"]


async def test_allcategories(pages: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await _q(pages, client, list="allcategories", acprop="size|hidden")
    assert data["query"]["allcategories"] == [
        {"category": "Food", "size": 1, "pages": 0, "files": 0, "subcats": 1, "hidden": False},
        {"category": "Fruit", "size": 3, "pages": 3, "files": 0, "subcats": 0, "hidden": False},
        # MediaWiki's tracking category of __HIDDENCAT__ category pages.
        {"category": "Hidden categories", "size": 1, "pages": 0, "files": 0, "subcats": 1,
         "hidden": False},
        {"category": "Hidden stuff", "size": 1, "pages": 1, "files": 0, "subcats": 0,
         "hidden": True},
        {"category": "Templates", "size": 2, "pages": 2, "files": 0, "subcats": 0,
         "hidden": False},
        {"category": "Yellow things", "size": 1, "pages": 1, "files": 0, "subcats": 0,
         "hidden": False},
    ]  # fmt: skip
    fv1 = await pages.api(client, action="query", list="allcategories", aclimit="1")
    assert fv1["query"]["allcategories"] == [{"*": "Food"}]
    assert fv1["continue"] == {"accontinue": "Fruit", "continue": "-||"}
    big = await _q(pages, client, list="allcategories", acmin="2", acdir="descending")
    assert [c["category"] for c in big["query"]["allcategories"]] == ["Templates", "Fruit"]
    pre = await _q(pages, client, list="allcategories", acprefix="f", acto="Fruit")
    assert [c["category"] for c in pre["query"]["allcategories"]] == ["Food", "Fruit"]
    gen = await _q(pages, client, generator="allcategories", gacfrom="H", prop="info")
    by_title = {p["title"]: p for p in gen["query"]["pages"]}
    assert sorted(by_title) == [
        "Category:Hidden categories", "Category:Hidden stuff", "Category:Templates",
        "Category:Yellow things",
    ]  # fmt: skip
    assert by_title["Category:Templates"]["missing"] is True


async def test_allcategories_rows(pages: WikiHarness, client: httpx.AsyncClient) -> None:
    """As MediaWiki 1.39's `category` table: a category is listed while it has members or a
    description page; one that lost its last member and has no page is gone."""
    token = await pages.csrf(client)
    for title, text in (
        ("Category:Lonely", "A category nobody is in."),
        ("Member", "x [[Category:Leaving]] [[Category:Staying]]"),
        ("Member", "x [[Category:Staying]]"),
        ("Doomed member", "[[Category:Deleted with page]]"),
        ("Category:Staying", "Described."),
    ):
        done = await pages.post(client, action="edit", title=title, text=text, token=token)
        assert done["edit"]["result"] == "Success", done
    done = await pages.post(client, action="delete", title="Doomed member", token=token)
    assert "error" not in done, done
    data = await _q(pages, client, list="allcategories", acprop="size", aclimit="max")
    sizes = {c["category"]: c["size"] for c in data["query"]["allcategories"]}
    assert {"Leaving", "Deleted with page"}.isdisjoint(sizes)
    assert (sizes["Lonely"], sizes["Staying"]) == (0, 1)
    empty = await _q(pages, client, list="allcategories", acmax="0", acprop="size|hidden")
    assert empty["query"]["allcategories"] == [
        {"category": "Lonely", "size": 0, "pages": 0, "files": 0, "subcats": 0, "hidden": False}
    ]
    assert "Lonely" not in [
        c["category"]
        for c in (await _q(pages, client, list="allcategories", acmin="1"))["query"][
            "allcategories"
        ]
    ]
    walked = await _q(pages, client, list="allcategories", acfrom="Lo", aclimit="1")
    assert walked["query"]["allcategories"] == [{"category": "Lonely"}]
    assert walked["continue"]["accontinue"] == "Staying"


CATEGORYINFO_TITLES = "|".join(
    f"Category:{name}"
    for name in ("Described", "Lost", "Described lost", "Hidden lost", "Hidden empty", "Never",
                 "Deleted with member", "Deleted empty")
)  # fmt: skip


def _catinfo(size: int, hidden: bool = False) -> dict[str, Any]:
    return {"size": size, "pages": size, "files": 0, "subcats": 0, "hidden": hidden}


async def test_categoryinfo_rows(pages: WikiHarness, client: httpx.AsyncClient) -> None:
    """prop=categoryinfo reads the same `category` rows as list=allcategories (as MediaWiki 1.39
    answered this very sequence): a described category with no members has zero counts, one
    that lost its last member keeps its zero row only while it has a page, and a missing page
    whose category has members still carries its counts."""
    token = await pages.csrf(client)

    async def edit(title: str, text: str) -> None:
        done = await pages.post(client, action="edit", title=title, text=text, token=token)
        assert done["edit"]["result"] == "Success", done

    await edit("Category:Described", "A category description.")
    await edit("Lister", "[[Category:Lost]] [[Category:Described lost]] [[Category:Hidden lost]]")
    await edit("Category:Described lost", "desc")
    await edit("Category:Hidden lost", "__HIDDENCAT__")
    await edit("Category:Hidden empty", "__HIDDENCAT__")
    await edit("Second lister", "[[Category:Deleted with member]]")
    await edit("Category:Deleted with member", "d")
    await edit("Category:Deleted empty", "d")

    async def infos() -> dict[str, Any]:
        data = await _q(pages, client, prop="categoryinfo", titles=CATEGORYINFO_TITLES)
        assert "continue" not in data, data
        return {
            p["title"][len("Category:") :]: (p.get("missing", False), p.get("categoryinfo"))
            for p in data["query"]["pages"]
        }

    before = await infos()
    assert before == {
        "Described": (False, _catinfo(0)),
        "Lost": (True, _catinfo(1)),
        "Described lost": (False, _catinfo(1)),
        "Hidden lost": (False, _catinfo(1, hidden=True)),
        "Hidden empty": (False, _catinfo(0, hidden=True)),
        "Never": (True, None),
        "Deleted with member": (False, _catinfo(1)),
        "Deleted empty": (False, _catinfo(0)),
    }
    await edit("Lister", "no categories any more")
    for title in ("Category:Deleted with member", "Category:Deleted empty"):
        done = await pages.post(client, action="delete", title=title, token=token)
        assert "error" not in done, done
    assert await infos() == {
        "Described": (False, _catinfo(0)),
        "Lost": (True, None),
        "Described lost": (False, _catinfo(0)),
        "Hidden lost": (False, _catinfo(0, hidden=True)),
        "Hidden empty": (False, _catinfo(0, hidden=True)),
        "Never": (True, None),
        "Deleted with member": (True, _catinfo(1)),
        "Deleted empty": (True, None),
    }
    # cicontinue is a category name, compared with each title of the set (missing ones too).
    resumed = await _q(
        pages, client, prop="categoryinfo", titles=CATEGORYINFO_TITLES, cicontinue="Described_lost"
    )
    assert sorted(p["title"] for p in resumed["query"]["pages"] if "categoryinfo" in p) == [
        "Category:Described lost", "Category:Hidden empty", "Category:Hidden lost",
    ]  # fmt: skip


async def test_all_links_family(pages: WikiHarness, client: httpx.AsyncClient) -> None:
    links = await _q(pages, client, list="alllinks", alprop="ids|title", allimit="3")
    first = links["query"]["alllinks"][0]
    assert list(first) == ["fromid", "ns", "title"] and first["title"] == "Apple"
    assert links["continue"]["alcontinue"].startswith("Apple|")
    unique = await _q(pages, client, list="alllinks", alunique="1", alprefix="C")
    assert unique["query"]["alllinks"] == [{"ns": 0, "title": "Cherry"}]
    mixed = await _q(pages, client, list="alllinks", alunique="1", alprop="ids")
    assert mixed["error"]["code"] == "invalidparammix"
    cats = await _q(pages, client, list="alllinks", alnamespace="14", alunique="1")
    assert cats["query"]["alllinks"] == [{"ns": 14, "title": "Category:Fruit"}]
    templates = await _q(pages, client, list="alltransclusions", atunique="1")
    assert [t["title"] for t in templates["query"]["alltransclusions"]] == [
        "Template:Infobox fruit", "Template:Stub",
    ]  # fmt: skip
    redirects = await _q(pages, client, list="allredirects", arprop="title|fragment|ids")
    assert [(r["title"], r.get("fragment")) for r in redirects["query"]["allredirects"]] == [
        ("Apple", None), ("Apple", "History"),
    ]  # fmt: skip
    files = await _q(pages, client, list="allfileusages")
    assert files["query"]["allfileusages"] == []
    gen = await _q(pages, client, generator="alltransclusions", gatunique="1", gatlimit="1")
    assert [p["title"] for p in gen["query"]["pages"]] == ["Template:Infobox fruit"]
    sources = await _q(pages, client, generator="allredirects", prop="info")
    assert sorted(p["title"] for p in sources["query"]["pages"]) == ["Malus", "Pomme"]


async def test_page_props_lists(pages: WikiHarness, client: httpx.AsyncClient) -> None:
    names = await _q(pages, client, list="pagepropnames")
    assert names["query"]["pagepropnames"] == [{"propname": "hiddencat"}, {"propname": "notoc"}]
    one = await _q(pages, client, list="pagepropnames", ppnlimit="1")
    assert one["continue"] == {"ppncontinue": "notoc", "continue": "-||"}
    props = await _q(
        pages, client, list="pageswithprop", pwppropname="notoc", pwpprop="ids|title|value"
    )
    assert [(p["title"], p["value"]) for p in props["query"]["pageswithprop"]] == [
        ("Links page", ""), ("Notoc page", ""),
    ]  # fmt: skip
    missing = await _q(pages, client, list="pageswithprop")
    assert missing["error"]["code"] == "missingparam"
    gen = await _q(pages, client, generator="pageswithprop", gpwppropname="hiddencat")
    assert [p["title"] for p in gen["query"]["pages"]] == ["Category:Hidden stuff"]


async def test_random(pages: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await _q(pages, client, list="random", rnlimit="3", rnnamespace="0")
    assert len(data["query"]["random"]) == 3
    assert list(data["query"]["random"][0]) == ["id", "ns", "title"]
    assert data["continue"]["rncontinue"].count("|") == 3
    everything = await walk(pages, client, "random", list="random", rnlimit="4", rnnamespace="0")
    titles = [r["title"] for r in everything]
    assert len(titles) == len(set(titles)) == 21  # every non-redirect article once
    redirects = await _q(pages, client, list="random", rnfilterredir="redirects", rnlimit="5")
    assert sorted(r["title"] for r in redirects["query"]["random"]) == ["Malus", "Pomme"]
    bad = await _q(pages, client, list="random", rncontinue="1|2|3|4")
    assert bad["error"]["code"] == "badcontinue"


async def test_protectedtitles(pages: WikiHarness, client: httpx.AsyncClient) -> None:
    props = "comment|expiry|level|parsedcomment|timestamp|user|userid"
    data = await _q(pages, client, list="protectedtitles", ptprop=props)
    talk, page = data["query"]["protectedtitles"]
    assert list(page) == [
        "ns", "title", "timestamp", "user", "userid", "comment", "parsedcomment", "expiry", "level",
    ]  # fmt: skip
    assert (page["title"], page["level"], page["expiry"]) == ("Unborn", "sysop", "infinity")
    assert talk["title"] == "Talk:Unborn" and talk["user"] == "Admin"
    sysop = await _q(pages, client, list="protectedtitles", ptlevel="sysop", ptprop="level")
    assert sysop["query"]["protectedtitles"] == [{"ns": 0, "title": "Unborn", "level": "sysop"}]
    gen = await _q(pages, client, generator="protectedtitles")
    assert all(p.get("missing") for p in gen["query"]["pages"])


async def test_exturlusage(pages: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await _q(pages, client, list="exturlusage")
    assert sorted(u["url"] for u in data["query"]["exturlusage"]) == [
        "http://other.test/x", "http://www.example.org/a", "https://docs.example.org/b",
    ]  # fmt: skip
    assert list(data["query"]["exturlusage"][0]) == ["pageid", "ns", "title", "url"]
    # A query without a protocol is an http:// one (ApiQueryExtLinksUsage).
    sub = await _q(pages, client, list="exturlusage", euquery="*.example.org", euprop="url")
    assert sub["query"]["exturlusage"] == [{"url": "http://www.example.org/a"}]
    secure = await _q(pages, client, list="exturlusage", euprotocol="https", euprop="url")
    assert secure["query"]["exturlusage"] == [{"url": "https://docs.example.org/b"}]
    gen = await _q(pages, client, generator="exturlusage")
    assert [p["title"] for p in gen["query"]["pages"]] == ["Links page"]


EXT_TEXT = (
    "[//Proto.Example.com/x rel] [http://www.example.org/path one] [https://b.example.org/ two] "
    "[mailto:me@Mail.example.net mail] [http://192.168.0.1/a ip] [ftp://ftp.example.org/f f]"
)


async def test_exturlusage_index_order(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """MediaWiki 1.39 orders by el_index (reversed domains; a protocol-relative link once, under
    http:, and again under https: for euprotocol=https), continues by `index|id`, takes a query's
    host case-insensitively and refuses a stray asterisk."""
    await wiki.edit_page("Ext", EXT_TEXT)
    data = await _q(wiki, client, list="exturlusage", euprop="url", eulimit="max")
    assert [u["url"] for u in data["query"]["exturlusage"]] == [
        "ftp://ftp.example.org/f", "http://192.168.0.1/a", "//Proto.Example.com/x",
        "http://www.example.org/path", "https://b.example.org/", "mailto:me@Mail.example.net",
    ]  # fmt: skip
    first = await _q(wiki, client, list="exturlusage", euprop="url", eulimit="2")
    cont = first["continue"]["eucontinue"]
    index, _, el_id = cont.partition("|")
    assert index == "http://com.example.proto./x" and el_id.isdigit()
    rest = await _q(wiki, client, list="exturlusage", euprop="url", eucontinue=cont)
    assert [u["url"] for u in rest["query"]["exturlusage"]][:1] == ["//Proto.Example.com/x"]
    secure = await _q(wiki, client, list="exturlusage", euprop="url", euprotocol="https")
    assert [u["url"] for u in secure["query"]["exturlusage"]] == [
        "//Proto.Example.com/x", "https://b.example.org/",
    ]  # fmt: skip
    for query, protocol, found in (
        ("Proto.EXAMPLE.com", "https", ["//Proto.Example.com/x"]),
        ("me@mail.example.net", "mailto", ["mailto:me@Mail.example.net"]),
        ("192.168.*", "", ["http://192.168.0.1/a"]),
        ("example.org", "", []),
    ):
        hit = await _q(wiki, client, list="exturlusage", euprop="url", euquery=query,
                       euprotocol=protocol)  # fmt: skip
        assert [u["url"] for u in hit["query"]["exturlusage"]] == found, query
    bad = await _q(wiki, client, list="exturlusage", euquery="a.*.org")
    assert bad["error"]["code"] == "badquery" and bad["error"]["info"] == "Invalid query."
    links = await _q(wiki, client, prop="extlinks", titles="Ext")
    assert len(links["query"]["pages"][0]["extlinks"]) == 6


CASES = st.fixed_dictionaries(
    {
        "limit": st.integers(1, 6),
        "descending": st.booleans(),
        "case": st.sampled_from(
            [
                ("alllinks", "al", {}),
                ("alllinks", "al", {"alunique": "1"}),
                ("alllinks", "al", {"alprefix": "A", "alnamespace": "0"}),
                ("alltransclusions", "at", {"atfrom": "Infobox", "atto": "Stub"}),
                ("allredirects", "ar", {"arprop": "ids|title|fragment"}),
                ("allcategories", "ac", {"acprop": "size"}),
                ("watchlistraw", "wr", {"wrfromtitle": "B", "wrtotitle": "Help:Z"}),
                ("watchlistraw", "wr", {}),
                ("pageswithprop", "pwp", {"pwppropname": "notoc"}),
                ("protectedtitles", "pt", {}),
                ("allusers", "au", {"auprop": "editcount"}),
                ("exturlusage", "eu", {}),
                ("pagepropnames", "ppn", {}),
                ("tags", "tg", {"tgprop": "hitcount"}),
            ]
        ),
    }
)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=CASES)
async def test_paging_walks_every_row_once(
    pages: WikiHarness, client: httpx.AsyncClient, case: dict[str, Any]
) -> None:
    module, prefix, params = case["case"]
    params = dict(params)
    if case["descending"]:  # the walk starts at `from` whichever way it goes
        for a, b in (("from", "to"), ("fromtitle", "totitle")):
            if prefix + a in params:
                params[prefix + a], params[prefix + b] = params[prefix + b], params[prefix + a]
    if module in ("protectedtitles",):
        params[prefix + "dir"] = "newer" if case["descending"] else "older"
    elif module in ("exturlusage", "pagepropnames", "tags"):
        pass  # one order only
    else:
        params[prefix + "dir"] = "descending" if case["descending"] else "ascending"
    full = await _q(pages, client, list=module, **params, **{prefix + "limit": "max"})
    assert "continue" not in full
    expected = (full if module == "watchlistraw" else full["query"])[module]
    walked = await walk(
        pages, client, module, list=module, **params, **{prefix + "limit": str(case["limit"])}
    )
    assert walked == expected and len(expected) >= 2


async def test_search_info_and_props_of_the_sql_backend(
    pages: WikiHarness, client: httpx.AsyncClient
) -> None:
    """MediaWiki's SQL search backend makes no suggestion, rewrites nothing and matches no
    redirect or section: `srinfo=suggestion|rewrittenquery` and the redirect/section props add
    nothing, while titlesnippet/categorysnippet/isfilematch come empty (as 1.39 answers)."""
    props = (
        "redirecttitle|redirectsnippet|sectiontitle|sectionsnippet|titlesnippet|"
        "categorysnippet|isfilematch|extensiondata"
    )
    data = await _q(
        pages, client, list="search", srsearch="apple", srwhat="text", srlimit="1",
        srinfo="totalhits|suggestion|rewrittenquery", srenablerewrites="1", srprop=props,
    )  # fmt: skip
    assert list(data["query"]["searchinfo"]) == ["totalhits"]
    (hit,) = data["query"]["search"]
    assert list(hit) == ["ns", "title", "pageid", "titlesnippet", "categorysnippet", "isfilematch"]
    assert (hit["titlesnippet"], hit["categorysnippet"], hit["isfilematch"]) == ("", "", False)
    typo = await _q(pages, client, list="search", srsearch="aple frut", srwhat="text",
                    srinfo="suggestion|rewrittenquery")  # fmt: skip
    assert typo["query"] == {"search": []}


NOSUCHUSER = {
    "en": 'There is no user by the name "Nobody". Check your spelling.',
    "de": "Der Benutzername „Nobody“ ist nicht vorhanden. Bitte überprüfe die Schreibweise.",
    "fr": "Il n’y a pas de contributeur avec le nom « Nobody ». Veuillez vérifier l’orthographe.",
    "de-ch": "Der Benutzername «Nobody» ist nicht vorhanden. Bitte überprüfe die Schreibweise.",
}


@pytest.mark.parametrize(
    ("lang", "badquery", "badip"),
    [
        ("en", "Invalid query.", "IP parameter is not valid."),
        ("de", "Ungültige Abfrage.", "Der IP-Parameter ist nicht gültig."),
        ("fr", "Requête invalide.", "Paramètre IP non valide."),
        ("de-ch", "Ungültige Abfrage.", "Der IP-Parameter ist nicht gültig."),
    ],
)
async def test_list_error_texts(
    wiki: WikiHarness, client: httpx.AsyncClient, lang: str, badquery: str, badip: str
) -> None:
    """apierror-badquery (exturlusage), apierror-badip (blocks) and nosuchusershort (watchlist;
    its line break a space in plaintext, as Sanitizer::stripAllTags) in MediaWiki 1.39's texts."""
    common = {"errorformat": "plaintext", "uselang": lang}
    data = await _q(wiki, client, list="watchlist", wlowner="Nobody", wltoken="x", **common)
    assert data["errors"] == [
        {"code": "bad_wlowner", "text": NOSUCHUSER[lang], "module": "query+watchlist"}
    ]
    data = await _q(wiki, client, list="exturlusage", euquery="a*b.com", **common)
    assert data["errors"] == [{"code": "badquery", "text": badquery, "module": "query+exturlusage"}]
    data = await _q(wiki, client, list="blocks", bkip="garbage", **common)
    assert data["errors"] == [{"code": "param_ip", "text": badip, "module": "query+blocks"}]
    raw = await _q(wiki, client, list="blocks", bkip="garbage", errorformat="raw")
    assert raw["errors"] == [
        {"code": "param_ip", "key": "apierror-badip", "params": [], "module": "query+blocks"}
    ]
