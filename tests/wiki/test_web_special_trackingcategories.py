"""`Special:TrackingCategories` over HTTP: every tracking category the parser adds, with its
message, its description and how many members it has, before and after pages earn them."""

from __future__ import annotations

import re

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit

pytestmark = pytest.mark.anyio


def _row(text: str, category: str) -> str:
    found = re.search(
        rf"<tr><td class=\"mw-trackingcategories-name\">(?:(?!</tr>).)*{category}(?:(?!</tr>).)*</tr>",
        text,
        re.S,
    )
    assert found is not None, category
    return found.group(0)


async def test_tracking_categories_with_counts(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    empty = await client.get("/wiki/Special:TrackingCategories")
    assert empty.status_code == 200
    text = empty.text
    assert 'id="mw-trackingcategories-table"' in text
    for name in ("Pages with broken file links", "Hidden categories",
                 "Pages where expansion depth is exceeded", "Pages where node count is exceeded",
                 "Pages containing omitted template arguments",
                 "Pages where template include size is exceeded"):  # fmt: skip
        assert f">{name}</a> (0 members)" in text, name
    broken = _row(text, "Pages with broken file links")
    assert 'href="/wiki/MediaWiki:Broken-file-category"' in broken
    assert ">broken-file-category</a>" in broken
    assert "a link to embed a file when the file does not exist" in broken
    assert "<code>__HIDDENCAT__</code>" in _row(text, "Hidden categories")
    # No category page yet: a red link.
    assert 'class="new" title="Category:Pages with broken file links (page does not exist)"' in (
        broken
    )
    await edit(wiki, 'Quote"&amp', "[[File:Nowhere at all.png]]")
    await edit(wiki, "Other", "[[File:Nowhere at all.png|thumb]]")
    await edit(wiki, "Category:Quiet", "__HIDDENCAT__")
    await edit(wiki, "Category:Pages with broken file links", "Tracked.")
    text = (await client.get("/wiki/Special:TrackingCategories")).text
    broken = _row(text, "Pages with broken file links")
    assert ">Pages with broken file links</a> (2 members)" in broken
    assert 'href="/wiki/Category:Pages_with_broken_file_links"' in broken
    assert ">Hidden categories</a> (1 member)" in text
