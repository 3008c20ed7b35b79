"""`Special:DeletedContributions` over HTTP: readers with `deletedhistory` see a user's edits to
deleted pages; others are refused; suppressed authors and summaries stay hidden from
administrators; unknown and hostile user names get MediaWiki's message, escaped."""

from __future__ import annotations

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import sign_in

from atrium.core.db import Conn
from atrium.wiki import schema

pytestmark = pytest.mark.anyio

HOSTILE = '"><img src=x onerror=alert(1)><script>alert(2)</script>'
SECRET = "Sealed-summary-text"


async def _delete(wiki: WikiHarness, title: str) -> None:
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        done = await wiki.post(
            admin, action="delete", title=title, reason="cleanup", token=await wiki.csrf(admin)
        )
        assert "error" not in done, done


async def test_refused_without_deletedhistory(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    anonymous = await client.get("/wiki/Special:DeletedContributions/Alice")
    assert anonymous.status_code == 200 and "Permission error" in anonymous.text
    await sign_in(wiki, client, "Alice")
    member = await client.get("/wiki/Special:DeletedContributions/Alice")
    assert member.status_code == 200 and "view a page&#39;s deleted history" in member.text


async def test_deleted_edits_listed_hidden_ones_kept_back(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Admin")
    form = await client.get("/wiki/Special:DeletedContributions")
    assert form.status_code == 200 and 'name="target"' in form.text
    assert "No changes were found" not in form.text
    none = await client.get("/wiki/Special:DeletedContributions/Alice")
    assert none.status_code == 200 and "No changes were found matching these criteria." in none.text
    for name in ("Nobody here", "<script>alert(3)</script>"):
        unknown = await client.get("/wiki/Special:DeletedContributions", params={"target": name})
        assert unknown.status_code == 200 and "is not registered" in unknown.text
        assert "<script>alert(3)" not in unknown.text
    await wiki.edit_page('Doomed "&amp', "one", user="Alice", summary=HOSTILE)
    sealed = await wiki.edit_page('Doomed "&amp', "two", user="Alice", summary=SECRET)
    hidden = await wiki.edit_page('Doomed "&amp', "three", user="Alice", summary="by whom")
    await wiki.edit_page("Living page", "stays", user="Alice", summary="alive")
    await _delete(wiki, 'Doomed "&amp')

    def suppress(conn: Conn) -> None:
        AR = schema.archive
        conn.execute(sa.update(AR).where(AR.c.ar_rev_id == sealed).values(ar_deleted=2 | 8))
        conn.execute(sa.update(AR).where(AR.c.ar_rev_id == hidden).values(ar_deleted=4 | 8))

    await wiki.db.write(suppress)
    page = await client.get("/wiki/Special:DeletedContributions/Alice?namespace=zz&limit=abc")
    assert page.status_code == 200
    text = page.text
    assert "Deleted user contributions for Alice" in text
    assert "<script>alert(2)" not in text and "&lt;script&gt;alert(2)" in text
    # The title reads `Doomed "&` (the parser takes "&amp" for an ampersand), escaped.
    assert ">Doomed &#34;&amp;</a>" in text
    assert SECRET not in text and "(edit summary removed)" in text
    assert "by whom" not in text  # its author is suppressed: the row is left out
    assert "alive" not in text  # not deleted
    assert text.count("deletion log</a>") == 2
    assert "timestamp=2" in text and "Special:Undelete" in text
    other = await client.get("/wiki/Special:DeletedContributions/Robot")
    assert "No changes were found matching these criteria." in other.text
