"""A user hidden by a `hidename` block stays out of every Special page for readers without
`hideuser`: every page `Special:SpecialPages` lists, opened plainly and with a large limit, as
an administrator and anonymously, never names them; an oversighter's user list does."""

from __future__ import annotations

import re
from html import unescape

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.test_leak_walk import HIDDEN, OVERSIGHT, _login, _setup
from tests.wiki.web_special_seed import sign_in

pytestmark = pytest.mark.anyio


async def _special_pages(client: httpx.AsyncClient) -> list[str]:
    listing = (await client.get("/wiki/Special:SpecialPages")).text
    found = {unescape(h) for h in re.findall(r'href="(/wiki/Special:[^"?]+)"', listing)}
    return sorted(found - {"/wiki/Special:UserLogout", "/wiki/Special:Random"})


async def test_hidden_user_never_named(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await _setup(wiki)
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        for reader in (client, admin):
            pages = await _special_pages(reader)
            assert len(pages) > 40
            for url in pages:
                for query in ("", "?limit=500&hidebots=0&days=90&type=&group=bot"):
                    page = await reader.get(url + query)
                    assert HIDDEN not in page.text, url + query
    async with wiki.client() as oversight:
        await _login(wiki, oversight, *OVERSIGHT)
        users = await oversight.get("/wiki/Special:ListUsers")
        assert HIDDEN in users.text


async def test_missing_user_page_status(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """A missing user page answers 200 for an account or an IP address and 404 otherwise, as
    Article::showMissingArticle does; a hidden account's answers 404 unless the reader may see
    hidden users, so the status does not tell that the account exists."""
    await _setup(wiki)
    for path, status in (
        ("/wiki/User:Alice", 200),
        ("/wiki/User_talk:Alice", 200),
        ("/wiki/User:Alice/Notes", 404),
        ("/wiki/User:192.0.2.7", 200),
        ("/wiki/User:Nobody_at_all", 404),
        (f"/wiki/User:{HIDDEN}", 404),
        (f"/wiki/User_talk:{HIDDEN}", 404),
        ("/wiki/MediaWiki:Mainpage", 200),
        ("/wiki/MediaWiki:No-such-message-qz", 404),
    ):
        answer = await client.get(path)
        assert answer.status_code == status, path
    async with wiki.client() as oversight:
        await _login(wiki, oversight, *OVERSIGHT)
        assert (await oversight.get(f"/wiki/User:{HIDDEN}")).status_code == 200
