"""`list=querypage` on the reference pages: MediaWiki 1.39's shape (`name`, `results`
with string values, `timestamp` for time-valued reports, `databaseResult` extras), its order,
offset paging, the restricted page, and the generator."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.seed import seed
from tests.wiki.snapshots import snapshot_wiki

from atrium.wiki.api.query.list.querypage import REPORTS

pytestmark = pytest.mark.anyio


async def _reports(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """The reference pages and two more redirects (one double, one broken)."""
    await seed(wiki, client)
    token = await wiki.csrf(client)
    for title, text in (("Pomme2", "#REDIRECT [[Pomme]]"), ("Gone link", "#REDIRECT [[Nowhere]]")):
        done = await wiki.post(client, action="edit", title=title, text=text, token=token)
        assert done["edit"]["result"] == "Success", done


wiki = snapshot_wiki("querypage", _reports, "seeded")


@pytest.fixture
async def seeded(wiki: WikiHarness, client: httpx.AsyncClient) -> WikiHarness:
    await wiki.login(client, "Admin")  # as `_reports` leaves its client
    return wiki


async def _qp(wiki: WikiHarness, client: httpx.AsyncClient, page: str, **params: Any) -> Any:
    return await wiki.api(
        client, action="query", list="querypage", qppage=page, formatversion="2", **params
    )


async def test_querypage_reports(seeded: WikiHarness, client: httpx.AsyncClient) -> None:
    long = await _qp(seeded, client, "Longpages", qplimit="2")
    assert long["query"]["querypage"]["name"] == "Longpages"
    first, second = long["query"]["querypage"]["results"]
    assert list(first) == ["value", "ns", "title"] and first == {
        "value": "246", "ns": 0, "title": "Apple",
    }  # fmt: skip
    assert int(second["value"]) <= 246
    assert long["continue"] == {"qpoffset": 2, "continue": "-||"}
    ancient = await _qp(seeded, client, "Ancientpages", qplimit="1")
    (oldest,) = ancient["query"]["querypage"]["results"]
    assert list(oldest) == ["value", "timestamp", "ns", "title"]
    assert oldest["timestamp"].startswith(oldest["value"][:4] + "-")
    wanted = await _qp(seeded, client, "Wantedpages")
    assert wanted["query"]["querypage"]["results"] == [
        {"value": "1", "ns": 0, "title": "Nowhere"}, {"value": "1", "ns": 0, "title": "Orchard"},
    ]  # fmt: skip
    linked = await _qp(seeded, client, "Mostlinked", qplimit="1")
    assert linked["query"]["querypage"]["results"] == [
        {"value": "22", "ns": 0, "title": "Apple", "databaseResult": {"page_namespace": "0"}}
    ]
    templates = await _qp(seeded, client, "Mostlinkedtemplates")
    assert [(r["title"], r["value"]) for r in templates["query"]["querypage"]["results"]] == [
        ("Template:Stub", "16"), ("Template:Infobox fruit", "3"),
    ]  # fmt: skip
    redirects = await _qp(seeded, client, "Listredirects")
    assert [r["title"] for r in redirects["query"]["querypage"]["results"]] == [
        "Gone link", "Malus", "Pomme", "Pomme2",
    ]  # fmt: skip
    assert redirects["query"]["querypage"]["results"][1]["databaseResult"]["rd_fragment"] == (
        "History"
    )
    double = await _qp(seeded, client, "DoubleRedirects")
    assert [r["title"] for r in double["query"]["querypage"]["results"]] == ["Pomme2"]
    broken = await _qp(seeded, client, "BrokenRedirects")
    assert [r["title"] for r in broken["query"]["querypage"]["results"]] == ["Gone link"]
    wanted_cats = await _qp(seeded, client, "Wantedcategories")
    assert [r["title"] for r in wanted_cats["query"]["querypage"]["results"]] == [
        "Category:Templates", "Category:Yellow things",
    ]  # fmt: skip
    uncategorized = await _qp(seeded, client, "Uncategorizedpages", qplimit="2")
    assert [r["title"] for r in uncategorized["query"]["querypage"]["results"]] == [
        "Filler page 01", "Filler page 02",
    ]  # fmt: skip
    fewest = await _qp(seeded, client, "Fewestrevisions", qplimit="1")
    assert fewest["query"]["querypage"]["results"][0]["value"] == "1"
    async with seeded.client() as anon:
        denied = await _qp(seeded, anon, "Unwatchedpages")
        assert denied["error"] == {
            "code": "specialpage-cantexecute",
            "info": "You don't have permission to view the results of this special page.",
            "docref": denied["error"]["docref"],
        }
    unwatched = await _qp(seeded, client, "Unwatchedpages")
    assert unwatched["query"]["querypage"]["results"] == []  # Admin watches what Admin created
    for page in REPORTS:  # every report runs on both databases
        data = await _qp(seeded, client, page)
        assert "error" not in data, (page, data)
    gen = await seeded.api(client, action="query", generator="querypage", gqppage="Wantedpages",
                           formatversion="2")  # fmt: skip
    assert sorted(p["title"] for p in gen["query"]["pages"]) == ["Nowhere", "Orchard"]
    assert all(p["missing"] for p in gen["query"]["pages"])


async def test_querypage_offset_paging(seeded: WikiHarness, client: httpx.AsyncClient) -> None:
    for page in ("Longpages", "Uncategorizedpages", "Mostlinkedtemplates", "Listredirects"):
        full = await _qp(seeded, client, page, qplimit="max")
        expected = full["query"]["querypage"]["results"]
        for limit in ("1", "3"):
            items: list[Any] = []
            cont: dict[str, Any] = {}
            for _ in range(100):
                data = await _qp(seeded, client, page, qplimit=limit, **cont)
                items.extend(data["query"]["querypage"]["results"])
                if "continue" not in data:
                    break
                cont = data["continue"]
            assert items == expected and len(expected) >= 2, page


async def test_querypage_negative_offset_reads_from_the_start(
    seeded: WikiHarness, client: httpx.AsyncClient
) -> None:
    full = await _qp(seeded, client, "Longpages", qplimit="max")
    negative = await _qp(seeded, client, "Longpages", qplimit="max", qpoffset="-1")
    assert negative["query"]["querypage"]["results"] == full["query"]["querypage"]["results"]
