"""`{{DEFAULTSORT}}` (in the text or from a template) and MediaWiki's tracking categories
("Pages with broken file links", "Hidden categories") in categorylinks, prop=categories,
list=categorymembers, categoryinfo and action=parse."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.test_file_props import _admin_token, _upload, png

pytestmark = pytest.mark.anyio


async def _categories(wiki: WikiHarness, client: httpx.AsyncClient, title: str) -> list[Any]:
    data = await wiki.api(
        client, action="query", prop="categories", titles=title, clprop="sortkey|hidden"
    )
    page = next(iter(data["query"]["pages"].values()))
    found: list[Any] = page.get("categories", [])
    return found


async def _members(wiki: WikiHarness, client: httpx.AsyncClient, category: str) -> list[Any]:
    data = await wiki.api(
        client,
        action="query",
        list="categorymembers",
        cmtitle=category,
        cmprop="title|sortkeyprefix",
    )
    members: list[Any] = data["query"]["categorymembers"]
    return members


async def test_defaultsort_orders_members_and_fills_sortkeyprefix(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Template:Person", "{{DEFAULTSORT:{{{last}}}, {{{first}}}}}")
    await wiki.edit_page("Ada Lovelace", "{{Person|first=Ada|last=Lovelace}} [[Category:People]]")
    await wiki.edit_page("Alan Turing", "{{DEFAULTSORT:Turing, Alan}}[[Category:People]]")
    await wiki.edit_page("Charles Babbage", "[[Category:People|Babbage]]")
    await wiki.edit_page("Zed", "[[Category:People]]")
    members = await _members(wiki, client, "Category:People")
    assert [(m["title"], m["sortkeyprefix"]) for m in members] == [
        ("Charles Babbage", "Babbage"),
        ("Ada Lovelace", "Lovelace, Ada"),
        ("Alan Turing", "Turing, Alan"),
        ("Zed", ""),
    ]
    cats = await _categories(wiki, client, "Ada Lovelace")
    assert cats[0]["sortkeyprefix"] == "Lovelace, Ada"
    parsed = await wiki.api(client, action="parse", page="Ada Lovelace", prop="categories")
    assert parsed["parse"]["categories"] == [
        {"sortkey": "Lovelace, Ada", "*": "People", "missing": ""}
    ]


async def test_defaultsort_noreplace_keeps_the_first(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page(
        "Keyed", "{{DEFAULTSORT:First}}{{DEFAULTSORT:Second|noreplace}}[[Category:Keys]]"
    )
    members = await _members(wiki, client, "Category:Keys")
    assert [m["sortkeyprefix"] for m in members] == ["First"]


async def test_broken_file_links_tracking_category(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    token = await _admin_token(wiki, client)
    uploaded = await _upload(client, token, "Present.png", png(4, 4))
    assert uploaded["upload"]["result"] == "Success", uploaded
    await wiki.edit_page("Gallery page", "[[File:Present.png]] and [[File:Absent.png|thumb]]")
    await wiki.edit_page(
        "Fine page", "[[File:Present.png]] [[:File:Absent.png]] [[Media:Gone.png]]"
    )
    await wiki.edit_page("Template:Pic", "[[File:Absent too.png]]")
    await wiki.edit_page("Via template", "{{Pic}}")
    members = await _members(wiki, client, "Category:Pages with broken file links")
    assert [m["title"] for m in members] == ["Gallery page", "Template:Pic", "Via template"]
    assert [c["title"] for c in await _categories(wiki, client, "Fine page")] == []
    parsed = await wiki.api(
        client,
        action="parse",
        title="T",
        text="{{DEFAULTSORT:Zed}}[[Category:Foo]][[File:Absent.png]][[Category:Bar|k]]",
        prop="categories",
    )
    # In MediaWiki's order: the tracking category where the missing file is embedded.
    assert parsed["parse"]["categories"] == [
        {"sortkey": "Zed", "*": "Foo", "missing": ""},
        {"sortkey": "Zed", "*": "Pages_with_broken_file_links", "missing": ""},
        {"sortkey": "k", "*": "Bar", "missing": ""},
    ]
    info = await wiki.api(
        client, action="query", prop="categoryinfo", titles="Category:Pages with broken file links"
    )
    page = next(iter(info["query"]["pages"].values()))
    assert page["categoryinfo"]["pages"] == 3


async def test_hidden_categories_tracking_category(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Category:Maintenance", "__HIDDENCAT__ Pages to fix.")
    await wiki.edit_page("Category:Shown", "A visible category.")
    await wiki.edit_page("Needs work", "[[Category:Maintenance]] [[Category:Shown]]")
    members = await _members(wiki, client, "Category:Hidden categories")
    assert [m["title"] for m in members] == ["Category:Maintenance"]
    cats = await _categories(wiki, client, "Needs work")
    assert [(c["title"], "hidden" in c) for c in cats] == [
        ("Category:Maintenance", True),
        ("Category:Shown", False),
    ]
    info = await wiki.api(
        client, action="query", prop="categoryinfo", titles="Category:Maintenance|Category:Shown"
    )
    hidden = {p["title"]: "hidden" in p["categoryinfo"] for p in info["query"]["pages"].values()}
    assert hidden == {"Category:Maintenance": True, "Category:Shown": False}
    # __HIDDENCAT__ outside the Category namespace does not make a hidden category.
    await wiki.edit_page("Not a category", "__HIDDENCAT__")
    members = await _members(wiki, client, "Category:Hidden categories")
    assert [m["title"] for m in members] == ["Category:Maintenance"]


async def test_bad_category_input(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Odd", "{{DEFAULTSORT:}}[[Category:]] [[File:]] [[Category:Real]]")
    members = await _members(wiki, client, "Category:Real")
    assert [(m["title"], m["sortkeyprefix"]) for m in members] == [("Odd", "")]
    data = await wiki.api(client, action="query", list="categorymembers", cmtitle="Category:")
    assert data["error"]["code"] == "invalidcategory"
