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
