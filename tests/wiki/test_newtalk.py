"""The new-talk notification: meta=userinfo&uiprop=hasmsg after someone else edits a user's
talk page, cleared when the user views it or calls action=clearhasmsg."""

from __future__ import annotations

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness

from atrium.wiki import schema

pytestmark = pytest.mark.anyio

NT = schema.user_newtalk


async def _hasmsg(wiki: WikiHarness, client: httpx.AsyncClient, fv: str = "2") -> object:
    data = await wiki.api(
        client, action="query", meta="userinfo", uiprop="hasmsg", formatversion=fv
    )
    return data["query"]["userinfo"].get("messages")


async def _edit(wiki: WikiHarness, who: httpx.AsyncClient, title: str, **extra: str) -> None:
    token = await wiki.csrf(who)
    done = await wiki.post(who, action="edit", title=title, text="Hi ~~~~", token=token, **extra)
    assert done["edit"]["result"] == "Success", done


async def test_talk_edit_flags_and_view_clears(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Alice")
    assert await _hasmsg(wiki, client) is False
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        await _edit(wiki, admin, "User talk:Alice")
        await _edit(wiki, admin, "User talk:Nobody at all")  # no such account: nothing to flag
    assert await _hasmsg(wiki, client) is True
    assert await _hasmsg(wiki, client, "1") == ""
    # someone else reading Alice's talk page does not clear it
    async with wiki.client() as other:
        await other.get("/wiki/User_talk:Alice")
    assert await _hasmsg(wiki, client) is True
    page = await client.get("/wiki/User_talk:Alice")
    assert page.status_code == 200
    assert await _hasmsg(wiki, client) is False
    # her own edit of her talk page flags nothing
    await _edit(wiki, client, "User talk:Alice")
    assert await _hasmsg(wiki, client) is False


async def test_clearhasmsg_and_anonymous(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    await _edit(wiki, client, "User talk:127.0.0.1")
    await _edit(wiki, client, "User talk:Alice")
    async with wiki.client() as anon:
        assert await _hasmsg(wiki, anon) is True
        done = await wiki.post(anon, action="clearhasmsg")
        assert done == {"clearhasmsg": "success"}
        assert await _hasmsg(wiki, anon) is False
        refused = await wiki.api(anon, action="clearhasmsg")
        assert refused["error"]["code"] == "mustbeposted"
    async with wiki.client() as alice:
        await wiki.login(alice, "Alice")
        assert await _hasmsg(wiki, alice) is True


async def test_an_address_with_leading_zeros_is_flagged_as_an_address(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    # MediaWiki's UserNameUtils::isIP reads `01.2.3.4` as an address (as this wiki's user
    # parameters do): its talk page flags the address, not an account of that name.
    await wiki.login(client, "Admin")
    await _edit(wiki, client, "User talk:01.2.3.4")
    flagged = wiki.db.read_sync(
        lambda conn: list(conn.scalars(sa.select(NT.c.user_ip).where(NT.c.user_id == 0)))
    )
    assert flagged == ["01.2.3.4"]
