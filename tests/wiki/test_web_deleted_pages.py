"""A deleted page's revisions stay out of every page a browser can open, as they stay out of
the API: old revisions, diffs, raw text, history, search and the page lists."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

SECRET = "Bellwether-secret-text"


async def test_deleted_page_leaks_nowhere(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    first = await wiki.edit_page("Gone page", f"{SECRET} one.")
    second = await wiki.edit_page("Gone page", f"{SECRET} two.", user="Alice")
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        # With a reason: without one MediaWiki logs "content was: …", public by design.
        done = await wiki.post(
            admin, action="delete", title="Gone page", reason="cleanup",
            token=await wiki.csrf(admin),
        )  # fmt: skip
        assert "error" not in done, done
    paths = [
        "/wiki/Gone_page",
        f"/w/index.php?title=Gone_page&oldid={first}",
        f"/w/index.php?oldid={second}",
        f"/w/index.php?title=Gone_page&diff={second}&oldid={first}",
        f"/w/index.php?diff={second}",
        f"/w/index.php?title=Gone_page&action=raw&oldid={first}",
        "/w/index.php?title=Gone_page&action=raw",
        "/w/index.php?title=Gone_page&action=history",
        "/w/index.php?title=Gone_page&action=info",
        "/w/index.php?title=Special:Search&search=Bellwether&fulltext=1",
        "/wiki/Special:AllPages",
        "/wiki/Special:RecentChanges",
        "/wiki/Special:Contributions/Alice",
        "/wiki/Special:NewPages",
    ]
    for path in paths:
        page = await client.get(path)
        assert page.status_code < 500, path
        assert SECRET not in page.text, path
    for path in ("/wiki/Special:AllPages", "/wiki/Special:Contributions/Alice"):
        assert "Gone page" not in (await client.get(path)).text, path
