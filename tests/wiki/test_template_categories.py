"""Categories that templates add are recorded in categorylinks, as MediaWiki records them."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


async def test_template_categories_reach_every_read(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page(
        "Template:Stub", "''stub'' [[Category:Stubs]]<noinclude>[[Category:Templates]]</noinclude>"
    )
    await wiki.edit_page("Short article", "Text {{Stub}} [[Category:Written]]")
    data = await wiki.api(client, action="query", prop="categories", titles="Short article")
    cats = [c["title"] for c in next(iter(data["query"]["pages"].values()))["categories"]]
    assert cats == ["Category:Stubs", "Category:Written"]
    members = await wiki.api(
        client, action="query", list="categorymembers", cmtitle="Category:Stubs"
    )
    # the template page shows its own category too, as in MediaWiki
    titles = {m["title"] for m in members["query"]["categorymembers"]}
    assert titles == {"Short article", "Template:Stub"}
    # the template's own noinclude category stays the template's
    members = await wiki.api(
        client, action="query", list="categorymembers", cmtitle="Category:Templates"
    )
    assert [m["title"] for m in members["query"]["categorymembers"]] == ["Template:Stub"]
