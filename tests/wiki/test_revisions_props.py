"""prop=revisions beyond the foundation: revision deletion hides what it should, revisions as a
generator, and the single-page parameters refused on several pages."""

from __future__ import annotations

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness

from atrium.wiki import schema

pytestmark = pytest.mark.anyio


async def _hide(wiki: WikiHarness, rev_id: int, bits: int) -> None:
    def update(conn: object) -> None:
        conn.execute(  # type: ignore[attr-defined]
            sa.update(schema.revision)
            .where(schema.revision.c.rev_id == rev_id)
            .values(rev_deleted=bits)
        )

    await wiki.db.write(update)


async def test_revision_deletion_hides_fields(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    rev = await wiki.edit_page("Secret", "hidden text", user="Alice", summary="private summary")
    await _hide(wiki, rev, 1 | 2 | 4)
    params = {
        "action": "query",
        "prop": "revisions",
        "titles": "Secret",
        "rvprop": "user|userid|comment|content",
        "rvslots": "main",
        "formatversion": "2",
    }
    anon = (await wiki.api(client, **params))["query"]["pages"][0]["revisions"][0]
    assert anon == {
        "userhidden": True,
        "commenthidden": True,
        "slots": {
            "main": {"contentmodel": "wikitext", "contentformat": "text/x-wiki", "texthidden": True}
        },
    }
    await wiki.login(client, "Admin")
    admin = (await wiki.api(client, **params))["query"]["pages"][0]["revisions"][0]
    assert admin["user"] == "Alice" and admin["comment"] == "private summary"
    assert admin["slots"]["main"]["content"] == "hidden text"
    assert admin["userhidden"] and admin["commenthidden"] and admin["slots"]["main"]["texthidden"]
    await _hide(wiki, rev, 1 | 8)
    suppressed = (await wiki.api(client, **params))["query"]["pages"][0]["revisions"][0]
    assert suppressed["suppressed"] is True
    assert "content" not in suppressed["slots"]["main"]


async def test_revisions_as_generator(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    first = await wiki.edit_page("Gen A", "a")
    await wiki.edit_page("Gen B", "b")
    data = await wiki.api(
        client, action="query", generator="revisions", revids=str(first), prop="info",
        formatversion="2",
    )  # fmt: skip
    assert [p["title"] for p in data["query"]["pages"]] == ["Gen A"]
    data = await wiki.api(
        client, action="query", generator="revisions", titles="Gen A|Gen B", formatversion="2"
    )
    assert sorted(p["title"] for p in data["query"]["pages"]) == ["Gen A", "Gen B"]


async def test_single_page_parameters_refused(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("One", "1")
    await wiki.edit_page("Two", "2")
    data = await wiki.api(
        client, action="query", prop="revisions", titles="One|Two", rvlimit="2", formatversion="2"
    )
    assert data["error"]["code"] == "invalidparammix"
    assert '"rvlimit", "rvstartid", "rvendid", "rvdir=newer"' in data["error"]["info"]
