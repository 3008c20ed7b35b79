"""`Special:ResetTokens` and `Special:AutoblockList` over HTTP: a user replaces the watchlist
feed's token (the old one stops opening the feed), anonymous readers and foreign posts are
refused; the autoblock list shows MediaWiki's empty state from the block table, and an autoblock
row is listed without its address."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes.blocks import BlockRequest
from atrium.wiki.changes.blocks import block as do_block
from atrium.wiki.changes.journal import Performer
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio

RESET = "/w/index.php?title=Special:ResetTokens"


def _current(page: str) -> str:
    found = re.search(r"current value: <code>([0-9a-f]*)</code>", page)
    assert found is not None, page
    return found.group(1)


async def _watchlist(wiki: WikiHarness, token: str) -> Any:
    """Alice's watchlist as someone without her session reads it, by her token."""
    async with wiki.client() as stranger:
        return await wiki.api(
            stranger, action="query", list="watchlist", wlowner="Alice", wltoken=token
        )


async def test_reset_tokens(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    anonymous = await client.get("/wiki/Special:ResetTokens")
    assert anonymous.status_code == 200 and "Not logged in" in anonymous.text
    await sign_in(wiki, client, "Alice")
    first = await client.get("/wiki/Special:ResetTokens")
    assert first.status_code == 200
    assert 'name="wptokens[]" value="watchlisttoken"' in first.text
    assert 'href="/wiki/Special:Watchlist"' in first.text  # the label's link, rendered
    shown = _current(first.text)  # made when first shown, as MediaWiki does
    assert len(shown) == 40 and _current((await client.get(RESET)).text) == shown
    assert (await _watchlist(wiki, shown)).get("error") is None
    token = await page_token(client)
    # Nothing ticked: the form again, nothing changed.
    same = await client.post(RESET, data={"wpEditToken": token})
    assert same.status_code == 200 and "Tokens reset." not in same.text
    old = _current(same.text)
    refused = await client.post(RESET, data={"wptokens[]": "watchlisttoken"})
    assert refused.status_code == 200 and _current((await client.get(RESET)).text) == old
    done = await client.post(RESET, data={"wptokens[]": "watchlisttoken", "wpEditToken": token})
    assert done.status_code == 200 and "Tokens reset." in done.text
    new = _current((await client.get(RESET)).text)
    assert len(new) == 40 and new != old
    assert (await _watchlist(wiki, new)).get("error") is None
    stale = await _watchlist(wiki, old)
    assert stale["error"]["code"] == "bad_wltoken"


async def test_autoblock_list(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    empty = await client.get("/wiki/Special:AutoblockList")
    assert empty.status_code == 200
    assert "The autoblock list is empty." in empty.text
    assert "Total number of autoblocks: 0" in empty.text
    # A user block with autoblock on makes no autoblock row by itself: still empty.
    admin = await wiki.db.read(account_by_name, "Admin")
    alice = await wiki.db.read(account_by_name, "Alice")
    assert admin is not None and alice is not None
    who = Performer(admin.id, admin.name, frozenset(admin.rights))
    request = BlockRequest(
        target="Alice", user_id=alice.id, expiry="infinity", duration="infinite",
        reason="<script>alert(1)</script>", autoblock=True,
    )  # fmt: skip
    await wiki.db.write(do_block, who, request)
    assert "The autoblock list is empty." in (await client.get("/wiki/Special:AutoblockList")).text

    def autoblock(conn: Conn) -> None:
        # What MediaWiki's autoblock makes of the address a blocked user edits from.
        B = schema.ipblocks
        parent = conn.scalar(sa.select(B.c.ipb_id).where(B.c.ipb_user == alice.id))
        found = conn.one(sa.select(B).where(B.c.ipb_id == parent))
        assert found is not None
        row = dict(found)
        row.pop("ipb_id")
        row.update(ipb_address="192.0.2.77", ipb_user=0, ipb_auto=True, ipb_parent_block_id=parent,
                   ipb_expiry="20991231000000")  # fmt: skip
        conn.execute(sa.insert(B).values(**row))

    await wiki.db.write(autoblock)
    listed = await client.get("/wiki/Special:AutoblockList?limit=abc")
    assert listed.status_code == 200
    assert "Total number of autoblocks: 1" in listed.text
    assert "Autoblock #" in listed.text and "192.0.2.77" not in listed.text
    assert "<script>alert" not in listed.text and "&lt;script&gt;alert(1)" in listed.text
    assert "The autoblock list is empty." not in listed.text
