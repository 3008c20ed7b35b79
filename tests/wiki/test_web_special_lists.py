"""The read-only Special pages over HTTP: SpecialPages, AllPages, PrefixIndex, Categories, Random,
RecentChanges, and the "No such special page" answer; bad input never fails, hostile titles and
summaries are escaped, hidden users stay hidden."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit, sign_in

pytestmark = pytest.mark.anyio


async def test_unknown_special_page_is_404_no_such_special_page(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    response = await client.get("/wiki/Special:NoSuchThing")
    assert response.status_code == 404
    assert "No such special page" in response.text
    assert "You have requested an invalid special page." in response.text
    assert "create this page" not in response.text
    assert 'href="/wiki/Special:SpecialPages"' in response.text


async def test_special_pages_lists_usable_pages(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    response = await client.get("/wiki/Special:SpecialPages")
    assert response.status_code == 200
    text = response.text
    assert 'id="mw-specialpagesgroup-changes"' in text
    assert 'href="/wiki/Special:RecentChanges"' in text
    assert 'href="/wiki/Special:AllPages"' in text
    # Names match without regard to case, as MediaWiki's aliases do.
    assert (await client.get("/wiki/Special:specialpages")).status_code == 200


async def test_all_pages_and_prefix_index(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    for name in ("Apple", "Apricot", "Banana", "Talk:Apple"):
        await wiki.edit_page(name, f"text of {name}")
    await wiki.edit_page("Apple pie", "#REDIRECT [[Apple]]")
    text = (await client.get("/wiki/Special:AllPages")).text
    assert text.index(">Apple<") < text.index(">Apricot<") < text.index(">Banana<")
    assert 'class="allpagesredirect"' in text
    assert "Talk:Apple" not in text
    text = (await client.get("/wiki/Special:AllPages", params={"from": "Apr"})).text
    assert ">Apple<" not in text and ">Apricot<" in text
    text = (await client.get("/wiki/Special:AllPages", params={"hideredirects": "1"})).text
    assert "Apple pie" not in text
    text = (await client.get("/wiki/Special:AllPages", params={"namespace": "1"})).text
    assert ">Talk:Apple<" in text and ">Banana<" not in text
    text = (await client.get("/wiki/Special:PrefixIndex/Ap")).text
    assert ">Apple<" in text and ">Apricot<" in text and ">Banana<" not in text
    text = (await client.get("/wiki/Special:PrefixIndex", params={"prefix": "B"})).text
    assert ">Banana<" in text and ">Apple<" not in text


@pytest.mark.parametrize(
    "params",
    [
        {"namespace": "abc"},
        {"namespace": "-5"},
        {"namespace": "99999999999999999999"},
        {"from": "<>[]{}|#"},
        {"to": "\x00"},
        {"limit": "-1", "days": "x"},
        {"days": "100000", "limit": "9999999999"},
    ],
)
async def test_bad_values_never_fail(
    wiki: WikiHarness, client: httpx.AsyncClient, params: dict[str, str]
) -> None:
    for page in ("AllPages", "PrefixIndex", "Categories", "RecentChanges"):
        response = await client.get(f"/wiki/Special:{page}", params=params)
        # Nothing has changed on this wiki yet: MediaWiki's recent changes answer 404 then.
        assert response.status_code == (404 if page == "RecentChanges" else 200), (page, params)
        assert "<!DOCTYPE html>" in response.text, (page, params)


async def test_categories_lists_categories_with_counts(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("One", "[[Category:Fruit]] [[Category:Red]]")
    await wiki.edit_page("Two", "[[Category:Fruit]]")
    text = (await client.get("/wiki/Special:Categories")).text
    assert 'href="/wiki/Category:Fruit"' in text
    assert "(2 members)" in text and "(1 member)" in text


async def test_random_redirects_to_a_page(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    empty = await client.get("/wiki/Special:Random")
    assert empty.status_code == 200
    assert "There are no pages in the following namespace" in empty.text
    await wiki.edit_page("Only page", "x")
    await wiki.edit_page("Talk:Only talk", "x")
    response = await client.get("/wiki/Special:Random")
    assert response.status_code == 302
    assert response.headers["location"] == "/wiki/Only_page"
    response = await client.get("/wiki/Special:Random/Talk")
    assert response.headers["location"] == "/wiki/Talk:Only_talk"


async def test_recent_changes_filters(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Plain", "one", user="Alice", summary="first words")
    await edit(wiki, "Talk:Plain", "two", user="Admin", summary="talking")
    await edit(wiki, "Botted", "three", user="Robot", summary="by a bot", bot=True)
    await wiki.edit_page("Small", "four, before recent changes began")
    await edit(wiki, "Small", "four", user="Alice", summary="tiny", minor=True)
    text = (await client.get("/wiki/Special:RecentChanges")).text
    assert ">Plain<" in text and ">Talk:Plain<" in text
    assert "(first words)" in text
    assert ">Botted<" not in text  # bots are hidden by default
    assert ">Small<" in text
    text = (await client.get("/wiki/Special:RecentChanges", params={"hidebots": "0"})).text
    assert ">Botted<" in text
    text = (await client.get("/wiki/Special:RecentChanges", params={"hideminor": "1"})).text
    assert ">Small<" not in text and ">Plain<" in text
    text = (await client.get("/wiki/Special:RecentChanges", params={"limit": "1"})).text
    assert text.count("mw-changeslist-line") == 1
    text = (await client.get("/wiki/Special:RecentChanges", params={"namespace": "1"})).text
    assert ">Talk:Plain<" in text and ">Plain<" not in text
    await sign_in(wiki, client, "Admin")
    text = (await client.get("/wiki/Special:RecentChanges", params={"hidemyself": "1"})).text
    assert ">Talk:Plain<" not in text and ">Plain<" in text


async def test_hostile_titles_and_summaries_are_escaped(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await edit(wiki, "Xss \"onmouseover='alert(1)'", "x", summary="<script>alert(1)</script>")
    for page in ("RecentChanges", "AllPages"):
        text = (await client.get(f"/wiki/Special:{page}")).text
        assert "<script>alert(1)" not in text
        assert "\"onmouseover='alert(1)'" not in text
    text = (await client.get("/wiki/Special:RecentChanges")).text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    text = (await client.get("/wiki/Special:PrefixIndex/<script>")).text
    assert "<script>" not in text


async def test_no_workspace_settings_without_a_workspace(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Admin")
    listing = (await client.get("/wiki/Special:SpecialPages")).text
    assert "Special:WorkspaceSettings" not in listing
    response = await client.get("/wiki/Special:WorkspaceSettings")
    assert response.status_code == 404
    assert "You have requested an invalid special page." in response.text
