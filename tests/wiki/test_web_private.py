"""The pages of a private wiki: an anonymous visitor sees only the login page, a signed-in
member reads as usual."""

from __future__ import annotations

import re

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.test_private_wiki import private_client
from tests.wiki.web_forms import sign_in

pytestmark = pytest.mark.anyio

__all__ = ["private_client"]


async def test_private_pages_need_a_login(
    wiki: WikiHarness, private_client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Secret", "Classified text.")
    for path in (
        "/wiki/Secret",
        "/w/index.php?title=Secret&action=raw",
        "/w/index.php?title=Secret&action=history",
        "/w/index.php?title=Secret&action=edit",
        "/w/index.php?search=Classified&fulltext=1",
        "/wiki/Special:Search?search=Classified",
    ):
        response = await private_client.get(path)
        # MediaWiki 1.39 with `$wgGroupPermissions['*']['read'] = false` answers its
        # "Login required" page at 200; no cache may keep it.
        assert response.status_code == 200, path
        shown = re.sub(r'href="[^"]*"', "", response.text)
        assert "Classified" not in shown and "Login required" in response.text
        assert "private" in response.headers["cache-control"], path
        assert "Special:UserLogin?returnto=" in response.text, path
    login = await private_client.get("/wiki/Special:UserLogin")
    assert login.status_code == 200 and 'id="wpName1"' in login.text
    assert (await sign_in(private_client, "Alice")).status_code == 302
    assert "Classified text." in (await private_client.get("/wiki/Secret")).text
