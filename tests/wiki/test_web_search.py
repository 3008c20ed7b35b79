"""Special:Search in a browser: "go" to an exact title, results with highlighted snippets,
`index.php?search=`, paging, and hostile queries kept as text."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


async def test_go_to_an_exact_title(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Pear tree", "Pears grow on it.")
    go = await client.get("/w/index.php?title=Special:Search&search=pear+tree&go=Go")
    assert go.status_code == 302 and go.headers["location"] == "/wiki/Pear_tree"
    missing = await client.get("/w/index.php?title=Special:Search&search=Plum+tree&go=Go")
    assert missing.status_code == 200
    assert "mw-search-createlink" in missing.text and "redlink=1" in missing.text


async def test_results_with_snippets(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Orchard", "An orchard holds many apple trees.")
    await wiki.edit_page("Kitchen", "Apple pie is baked here.")
    await wiki.edit_page("Garage", "Nothing about fruit.")
    page = (await client.get("/w/index.php?search=apple&fulltext=1")).text
    assert 'class="mw-search-results"' in page
    assert ">Orchard</a>" in page and ">Kitchen</a>" in page and ">Garage</a>" not in page
    assert "<span class='searchmatch'>apple</span>" in page
    assert "Showing results 1 – 2 of 2" in page
    first = (await client.get("/wiki/Special:Search?search=apple&fulltext=1&limit=1")).text
    assert "next page" in first and "offset=1" in first


async def test_hostile_query_stays_text(client: httpx.AsyncClient) -> None:
    page = await client.get(
        "/wiki/Special:Search", params={"search": '"><script>alert(1)</script>', "limit": "x"}
    )
    assert page.status_code == 200
    assert "<script>alert(1)" not in page.text and "&lt;script&gt;" in page.text
