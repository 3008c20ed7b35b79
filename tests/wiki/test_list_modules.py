"""List modules on the reference wiki's pages (built through action=edit): backlinks, embeddedin,
imageusage, categorymembers, search, prefixsearch; MediaWiki's answers where they are known, the
errors, and a paging property per module (any limit and direction walks every row exactly once)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.wiki.conftest import WikiHarness
from tests.wiki.seed import seed
from tests.wiki.snapshots import snapshot_wiki

pytestmark = pytest.mark.anyio


wiki = snapshot_wiki("reference", seed, "seeded")


@pytest.fixture
async def seeded(wiki: WikiHarness, client: httpx.AsyncClient) -> WikiHarness:
    await wiki.login(client, "Admin")  # as `seed` leaves its client
    return wiki


async def _walk(wiki: WikiHarness, client: httpx.AsyncClient, key: str, **params: Any) -> list[Any]:
    """Follow `continue` to the end; every item of `query[key]`, in order."""
    items: list[Any] = []
    cont: dict[str, Any] = {}
    for _ in range(200):
        data = await wiki.api(client, action="query", formatversion="2", **params, **cont)
        assert "error" not in data, data
        items.extend(data["query"][key])
        if "continue" not in data:
            return items
        cont = data["continue"]
    raise AssertionError("continuation did not end")


async def test_backlinks_as_mediawiki(seeded: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await seeded.api(
        client, action="query", list="backlinks", bltitle="Apple", bllimit="20",
        blredirect="1", formatversion="2",
    )  # fmt: skip
    titles = [b["title"] for b in data["query"]["backlinks"]]
    assert titles[:4] == ["Banana", "Cherry", "Pomme", "Malus"]
    pomme = data["query"]["backlinks"][2]
    assert pomme["redirect"] is True
    assert [r["title"] for r in pomme["redirlinks"]] == ["Main Page"]
    assert "redirect" not in data["query"]["backlinks"][0]
    page_id = data["query"]["backlinks"][19]["pageid"]
    assert data["continue"] == {"blcontinue": f"0|{page_id + 1}", "continue": "-||"}
    both = await seeded.api(client, action="query", list="backlinks", bltitle="Apple", blpageid="1")
    assert both["error"]["code"] == "invalidparammix"
    neither = await seeded.api(client, action="query", list="backlinks")
    assert neither["error"] == {
        "code": "missingparam",
        "info": 'One of the parameters "bltitle" and "blpageid" is required.',
        "*": neither["error"]["*"],
    }
    bad = await seeded.api(
        client, action="query", list="backlinks", bltitle="Apple", blcontinue="x"
    )
    assert bad["error"]["code"] == "badcontinue"
    only_talk = await seeded.api(
        client, action="query", list="backlinks", bltitle="Apple", blnamespace="1|12",
        formatversion="2",
    )  # fmt: skip
    assert [b["title"] for b in only_talk["query"]["backlinks"]] == ["Talk:Apple", "Help:Searching"]
    redirects = await seeded.api(
        client, action="query", list="backlinks", bltitle="Apple", blfilterredir="redirects",
        formatversion="2",
    )  # fmt: skip
    assert [b["title"] for b in redirects["query"]["backlinks"]] == ["Pomme", "Malus"]


async def test_embeddedin_and_generator(seeded: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await seeded.api(
        client, action="query", generator="embeddedin", geititle="Template:Infobox fruit",
        formatversion="2",
    )  # fmt: skip
    assert [p["title"] for p in data["query"]["pages"]] == ["Apple", "Banana", "Cherry"]


async def test_categorymembers(seeded: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await seeded.api(
        client, action="query", list="categorymembers", cmtitle="Category:Fruit",
        cmprop="title|sortkey|sortkeyprefix|type", formatversion="2",
    )  # fmt: skip
    assert data["query"]["categorymembers"][0] == {
        "ns": 0, "title": "Apple", "sortkey": "4150504c45", "sortkeyprefix": "", "type": "page",
    }  # fmt: skip
    subcats = await seeded.api(
        client, action="query", list="categorymembers", cmtitle="Category:Food",
        cmtype="subcat", formatversion="2",
    )  # fmt: skip
    assert [m["title"] for m in subcats["query"]["categorymembers"]] == ["Category:Fruit"]
    bad = await seeded.api(client, action="query", list="categorymembers", cmtitle="Fruit")
    assert bad["error"]["code"] == "invalidcategory"
    limited = await seeded.api(
        client, action="query", list="categorymembers", cmtitle="Category:Fruit", cmlimit="1"
    )
    assert limited["continue"]["cmcontinue"].startswith("page|42414e414e41|")


async def test_search_as_mediawiki(seeded: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await seeded.api(
        client, action="query", list="search", srsearch="fruit", srwhat="text", srlimit="3",
        formatversion="2",
    )  # fmt: skip
    assert data["continue"] == {"sroffset": 3, "continue": "-||"}
    assert data["query"]["searchinfo"] == {"totalhits": 19}
    first = data["query"]["search"][0]
    assert first["title"] == "Apple" and first["size"] == 246 and first["wordcount"] == 37
    assert first["snippet"] == (
        "{{Infobox <span class='searchmatch'>fruit</span>|name=Apple|colour=red}}\n"
        "An &#039;&#039;&#039;apple&#039;&#039;&#039; is the edible "
        "<span class='searchmatch'>fruit</span> of the apple tree. Compare with [[Banana]] and "
        "[[Cherry]]; see also [[Orcha\n"
    )
    titles = await seeded.api(client, action="query", list="search", srsearch="fruit")
    assert titles["query"] == {"searchinfo": {"totalhits": 0}, "search": []}
    near = await seeded.api(
        client, action="query", list="search", srsearch="apple", srwhat="nearmatch",
        formatversion="2",
    )  # fmt: skip
    assert [s["title"] for s in near["query"]["search"]] == ["Apple"]
    assert "searchinfo" not in near["query"]
    phrase = await seeded.api(
        client, action="query", list="search", srsearch='"fruit salad" -apple', srwhat="text",
        formatversion="2",
    )  # fmt: skip
    assert phrase["query"]["searchinfo"]["totalhits"] == 0
    gen = await seeded.api(
        client, action="query", generator="search", gsrsearch="fruit", gsrwhat="text",
        gsrlimit="3", formatversion="2",
    )  # fmt: skip
    assert [p["index"] for p in gen["query"]["pages"]] == [1, 2, 3]
    assert gen["continue"] == {"gsroffset": 3, "continue": "gsroffset||"}
    missing = await seeded.api(client, action="query", list="search")
    assert missing["error"]["code"] == "missingparam"
    bad_what = await seeded.api(client, action="query", list="search", srsearch="x", srwhat="y")
    assert bad_what["error"]["code"] == "badvalue"


async def test_search_follows_edits(seeded: WikiHarness, client: httpx.AsyncClient) -> None:
    token = await seeded.csrf(client)
    await seeded.post(
        client, action="edit", title="Banana", text="Now about kumquats.", token=token
    )
    data = await seeded.api(
        client, action="query", list="search", srsearch="kumquats", srwhat="text",
        formatversion="2",
    )  # fmt: skip
    assert [s["title"] for s in data["query"]["search"]] == ["Banana"]
    gone = await seeded.api(
        client, action="query", list="search", srsearch="elongated", srwhat="text",
        formatversion="2",
    )  # fmt: skip
    assert gone["query"]["search"] == []


async def test_prefixsearch(seeded: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await seeded.api(
        client, action="query", list="prefixsearch", pssearch="fil", pslimit="2", formatversion="2"
    )
    assert [p["title"] for p in data["query"]["prefixsearch"]] == [
        "Filler page 01",
        "Filler page 02",
    ]
    assert data["continue"] == {"psoffset": 2, "continue": "-||"}
    help_pages = await seeded.api(
        client, action="query", list="prefixsearch", pssearch="Help:Se", formatversion="2"
    )
    assert [p["title"] for p in help_pages["query"]["prefixsearch"]] == ["Help:Searching"]


PAGING = st.fixed_dictionaries(
    {"limit": st.integers(1, 7), "descending": st.booleans(), "several_ns": st.booleans()}
)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=PAGING)
async def test_paging_walks_every_row_once(
    seeded: WikiHarness, client: httpx.AsyncClient, case: dict[str, Any]
) -> None:
    limit = str(case["limit"])
    direction = "descending" if case["descending"] else "ascending"
    ns = {"blnamespace": "0|1|12"} if case["several_ns"] else {}
    everything = await seeded.api(
        client, action="query", list="backlinks", bltitle="Apple", bllimit="max", formatversion="2",
        bldir=direction, **ns,
    )  # fmt: skip
    expected = everything["query"]["backlinks"]
    walked = await _walk(
        seeded, client, "backlinks", list="backlinks", bltitle="Apple", bllimit=limit,
        bldir=direction, **ns,
    )  # fmt: skip
    assert walked == expected and len(expected) >= 20
    for sort in ("sortkey", "timestamp"):
        members = await _walk(
            seeded, client, "categorymembers", list="categorymembers", cmtitle="Category:Fruit",
            cmlimit=limit, cmdir=direction, cmsort=sort,
        )  # fmt: skip
        assert sorted(m["title"] for m in members) == ["Apple", "Banana", "Cherry"]
    hits = await _walk(
        seeded, client, "search", list="search", srsearch="apple", srwhat="text", srlimit=limit
    )
    ids = [h["pageid"] for h in hits]
    assert len(ids) == len(set(ids)) == 21
