"""action=edit: undo/undoafter (a real undo, MediaWiki's undofailure on conflicts) and tags."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness

from atrium.wiki import schema
from atrium.wiki.changes.undo import merge3, undo_text

pytestmark = pytest.mark.anyio


def test_merge3_as_diff3() -> None:
    # Undoing a middle change while a later change elsewhere stays.
    assert merge3("a\nB\nc\nd\ne", "a\nb\nc\nd\ne", "a\nB\nc\nD\ne") == "a\nb\nc\nD\ne\n"
    # Changes to the same or to adjacent lines conflict (diff3 puts them in one block).
    assert merge3("a\nb\nc\nd", "a\nB\nc\nd", "a\nb\nC\nd") is None
    assert merge3("a\nb\nd", "a\nb\nX\nd", "a\nb\nY\nd") is None
    # The same change on both sides is no conflict.
    assert merge3("a\nb", "a\nB", "a\nB") == "a\nB\n"
    # A straight revert needs no merge.
    assert undo_text("same", "same", "before") == "before"


async def _text_and_rev(wiki: WikiHarness, client: httpx.AsyncClient, title: str) -> Any:
    data = await wiki.api(
        client,
        action="query",
        prop="revisions",
        titles=title,
        rvprop="content|comment|ids|tags",
        rvslots="main",
        formatversion="2",
    )
    return data["query"]["pages"][0]["revisions"][0]


async def test_undo_latest_and_middle_revision(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    r1 = await wiki.edit_page("Undo me", "line one\nline two\nline three\nline four\nline five")
    r2 = await wiki.edit_page(
        "Undo me", "line one\nLINE TWO\nline three\nline four\nline five", user="Alice"
    )
    r3 = await wiki.edit_page(
        "Undo me", "line one\nLINE TWO\nline three\nline four\nLINE FIVE", user="Alice"
    )
    await wiki.login(client, "Admin")
    csrf = await wiki.csrf(client)
    # Undo r2 alone: its change goes, r3's stays.
    done = await wiki.post(client, action="edit", title="Undo me", undo=str(r2), token=csrf)
    assert done["edit"]["result"] == "Success" and done["edit"]["oldrevid"] == r3
    rev = await _text_and_rev(wiki, client, "Undo me")
    assert rev["slots"]["main"]["content"] == (
        "line one\nline two\nline three\nline four\nLINE FIVE"
    )
    assert rev["comment"] == (
        f"Undo revision {r2} by [[Special:Contributions/Alice|Alice]] ([[User talk:Alice|talk]])"
    )
    assert "mw-undo" in rev["tags"]
    # A range (undoafter, undo] given in either order, with an explicit summary.
    ranged = await wiki.post(
        client,
        action="edit",
        title="Undo me",
        undo=str(r1),
        undoafter=str(r3),
        summary="back to r1",
        token=csrf,
    )
    assert ranged["edit"]["result"] == "Success"
    rev = await _text_and_rev(wiki, client, "Undo me")
    assert rev["comment"] == "back to r1"
    # r1 -> r3 undone on top of the current text: r3's changes vanish (the current text already
    # lacks r2's), leaving r1's text.
    assert rev["slots"]["main"]["content"] == "line one\nline two\nline three\nline four\nline five"
    count = wiki.db.read_sync(
        lambda conn: conn.scalar(
            sa.select(sa.func.count())
            .select_from(schema.change_tag)
            .join(
                schema.change_tag_def,
                schema.change_tag_def.c.ctd_id == schema.change_tag.c.ct_tag_id,
            )
            .where(schema.change_tag_def.c.ctd_name == "mw-undo")
        )
    )
    assert count == 2


async def test_undo_failure_and_bad_revisions(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Conflict", "alpha\nbeta\ngamma")
    r2 = await wiki.edit_page("Conflict", "alpha\nBETA\ngamma")
    await wiki.edit_page("Conflict", "alpha\nBeta!\ngamma")
    first_rev = await wiki.edit_page("Elsewhere", "x")
    other = await wiki.edit_page("Elsewhere", "y")
    await wiki.login(client, "Admin")
    csrf = await wiki.csrf(client)
    failed = await wiki.post(client, action="edit", title="Conflict", undo=str(r2), token=csrf)
    assert failed["error"]["code"] == "undofailure"
    assert failed["error"]["info"] == (
        "The edit could not be undone due to conflicting intermediate edits."
    )
    missing = await wiki.post(client, action="edit", title="Conflict", undo="99999", token=csrf)
    assert missing["error"]["code"] == "nosuchrevid"
    assert missing["error"]["info"] == "There is no revision with ID 99999."
    wrong = await wiki.post(client, action="edit", title="Conflict", undo=str(other), token=csrf)
    assert wrong["error"]["code"] == "revwrongpage"
    assert wrong["error"]["info"] == f"r{other} is not a revision of Conflict."
    # The first revision has nothing before it.
    first = await wiki.post(
        client, action="edit", title="Elsewhere", undo=str(first_rev), token=csrf
    )
    assert first["error"]["code"] == "nosuchrevid"


async def test_tags_only_defined_active_ones(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    def define(conn: Any) -> None:
        conn.executemany(
            sa.insert(schema.change_tag_def),
            [
                {"ctd_name": "reviewed", "ctd_user_defined": True, "ctd_count": 0},
                {"ctd_name": "retired", "ctd_user_defined": False, "ctd_count": 0},
            ],
        )

    wiki.db.write_sync(define)
    await wiki.login(client, "Alice")
    csrf = await wiki.csrf(client)
    ok = await wiki.post(
        client, action="edit", title="Tagged", text="t", tags="reviewed", token=csrf
    )
    assert ok["edit"]["result"] == "Success"
    rev = await _text_and_rev(wiki, client, "Tagged")
    assert rev["tags"] == ["reviewed"]
    count = wiki.db.read_sync(
        lambda conn: conn.scalar(
            sa.select(schema.change_tag_def.c.ctd_count).where(
                schema.change_tag_def.c.ctd_name == "reviewed"
            )
        )
    )
    assert count == 1
    inactive = await wiki.post(
        client, action="edit", title="Tagged", text="u", tags="retired", token=csrf
    )
    assert inactive["error"]["code"] == "tags-apply-not-allowed-one"
    assert inactive["error"]["info"] == 'The tag "retired" is not allowed to be manually applied.'
    both = await wiki.post(
        client, action="edit", title="Tagged", text="u", tags="retired|nosuch", token=csrf
    )
    assert both["error"]["code"] == "tags-apply-not-allowed-multi"
    assert both["error"]["info"] == (
        "The following tags are not allowed to be manually applied: retired, nosuch"
    )
