"""`Special:Watchlist` and `Special:EditWatchlist` over HTTP: changes to watched pages only,
removing titles with the session's token, and the refusals (not signed in, no token)."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit, page_token, sign_in

from atrium.wiki.changes.watching import is_watched, set_watch
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio


async def _watch(wiki: WikiHarness, name: str, title: str) -> int:
    account = await wiki.db.read(account_by_name, name)
    assert account is not None
    await wiki.db.write(set_watch, account.id, wiki.site.parser.parse(title), True)
    return int(account.id)


async def test_watchlist_shows_changes_to_watched_pages(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _watch(wiki, "Alice", "Garden")
    await edit(wiki, "Garden", "roses", user="Admin", summary="planted <roses>")
    await edit(wiki, "Talk:Garden", "nice", user="Admin")
    await edit(wiki, "Field", "corn", user="Admin")
    await sign_in(wiki, client, "Alice")
    text = (await client.get("/wiki/Special:Watchlist")).text
    assert "You have 1 page on your watchlist" in text
    assert ">Garden<" in text and ">Talk:Garden<" in text and ">Field<" not in text
    assert "(planted &lt;roses&gt;)" in text


async def test_edit_watchlist_removes_titles(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    user_id = await _watch(wiki, "Alice", "Garden")
    await _watch(wiki, "Alice", "Orchard")
    await sign_in(wiki, client, "Alice")
    page = (await client.get("/wiki/Special:EditWatchlist")).text
    assert 'value="Garden"' in page and 'value="Orchard"' in page
    refused = await client.post(
        "/w/index.php?title=Special:EditWatchlist", data={"titles[]": "Garden"}
    )
    assert refused.status_code == 200 and "session hijacking" in refused.text
    done = await client.post(
        "/w/index.php?title=Special:EditWatchlist",
        data={"titles[]": ["Garden", "<bad>", ""], "wpEditToken": await page_token(client)},
    )
    assert done.status_code == 303
    garden, orchard = (wiki.site.parser.parse(t) for t in ("Garden", "Orchard"))
    assert not await wiki.db.read(is_watched, user_id, garden)
    assert await wiki.db.read(is_watched, user_id, orchard)


async def test_watchlist_needs_sign_in(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    for page in ("Watchlist", "EditWatchlist"):
        response = await client.get(f"/wiki/Special:{page}")
        assert response.status_code == 200 and "Not logged in" in response.text
