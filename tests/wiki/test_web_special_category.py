"""Category pages over HTTP: subcategories, pages and files in their sections, 200 at a time with
previous/next links, a missing category page that still lists its members, and escaping."""

from __future__ import annotations

import re

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


async def test_category_page_lists_subcategories_pages_and_files(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Category:Fruit", "All fruit.")
    await wiki.edit_page("Category:Citrus", "[[Category:Fruit]]")
    await wiki.edit_page("Apple", "[[Category:Fruit]]")
    await wiki.edit_page("Talk:Apple", "[[Category:Fruit]]")
    await wiki.edit_page("File:Apple.png", "[[Category:Fruit]]")
    response = await client.get("/wiki/Category:Fruit")
    assert response.status_code == 200
    text = response.text
    assert '<div class="mw-parser-output"><p>All fruit.' in text
    subcats = text[text.index('id="mw-subcategories"') : text.index('id="mw-pages"')]
    assert 'href="/wiki/Category:Citrus"' in subcats and ">Citrus<" in subcats
    assert "only the following subcategory" in subcats
    pages = text[text.index('id="mw-pages"') : text.index('id="mw-category-media"')]
    assert 'Pages in category "Fruit"' in pages
    assert ">Apple<" in pages and ">Talk:Apple<" in pages
    assert "The following 2 pages are in this category, out of 2 total." in pages
    media = text[text.index('id="mw-category-media"') :]
    assert 'href="/wiki/File:Apple.png"' in media
    assert "/images/thumb/" in media and "120px-Apple.png" in media


async def test_missing_category_page_still_lists_members(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Pear", "[[Category:Unwritten]]")
    response = await client.get("/wiki/Category:Unwritten")
    assert response.status_code == 404
    assert 'id="mw-pages"' in response.text and ">Pear<" in response.text
    empty = await client.get("/wiki/Category:Nothing_here")
    assert "This category currently contains no pages or media." in empty.text


async def test_members_come_200_at_a_time_with_next_and_previous(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    for n in range(205):
        await wiki.edit_page(f"Member {n:03d}", "[[Category:Big]]")
    first = (await client.get("/wiki/Category:Big")).text
    assert first.count('<li><a href="/wiki/Member_') == 200
    assert ">Member 199<" in first and ">Member 200<" not in first
    following = re.search(r'href="([^"]*pagefrom=[^"#]*)#mw-pages">next page', first)
    assert following is not None
    second = (await client.get(following.group(1).replace("&amp;", "&"))).text
    assert second.count('<li><a href="/wiki/Member_') == 5
    assert ">Member 200<" in second and ">Member 204<" in second
    back = re.search(r'href="([^"]*pageuntil=[^"#]*)#mw-pages">previous page', second)
    assert back is not None
    again = (await client.get(back.group(1).replace("&amp;", "&"))).text
    assert again.count('<li><a href="/wiki/Member_') == 200
    assert ">Member 000<" in again and ">Member 200<" not in again


@pytest.mark.parametrize(
    "params", [{"pagefrom": "\x00"}, {"pageuntil": "zzz"}, {"filefrom": "<script>"}]
)
async def test_bad_paging_values_never_fail(
    wiki: WikiHarness, client: httpx.AsyncClient, params: dict[str, str]
) -> None:
    await wiki.edit_page("Plum", "[[Category:Stone fruit]]")
    await wiki.edit_page("Category:Stone fruit", "Plums and such.")
    response = await client.get("/wiki/Category:Stone_fruit", params=params)
    assert response.status_code == 200
    assert "<script>" not in response.text


async def test_member_names_are_escaped(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("A \"onclick='x'\" & b", "[[Category:Odd]]")
    text = (await client.get("/wiki/Category:Odd")).text
    assert "\"onclick='x'\"" not in text
    assert "&#34;onclick=&#39;x&#39;&#34; &amp; b" in text
