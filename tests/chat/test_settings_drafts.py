"""PATCH /settings with `enable_drafts_synchronization=false` deletes the user's drafts (Zulip)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error, listen

pytestmark = pytest.mark.anyio


async def draft_owners(chat: ChatHarness) -> list[int]:
    return sorted(
        await chat.runtime.db.read(
            lambda conn: list(conn.scalars(sa.select(schema.draft.c.user_id)))
        )
    )


async def test_turning_synchronization_off_deletes_drafts(chat: ChatHarness) -> None:
    mine = [{"type": "", "to": [], "topic": "", "content": f"draft {i}"} for i in range(3)]
    await api_ok(chat, "POST", "/drafts", chat.hamlet, drafts=mine)
    await api_ok(chat, "POST", "/drafts", chat.cordelia, drafts=mine[:1])
    drafts_q = await listen(chat, chat.hamlet, ["drafts", "user_settings"])
    await api_ok(chat, "PATCH", "/settings", chat.hamlet, enable_drafts_synchronization=False)
    # Only Hamlet's drafts went; no `drafts` events, only the setting's own event.
    assert await draft_owners(chat) == [chat.cordelia.id]
    events = await drafts_q.events()
    assert [(e["type"], e["property"], e["value"]) for e in events] == [
        ("user_settings", "enable_drafts_synchronization", False)
    ]
    resp = await chat.get("/drafts", chat.hamlet)
    assert_json_error(resp, "User has disabled synchronizing drafts.")
    # Turning it back on brings nothing back; new drafts are stored again.
    await api_ok(chat, "PATCH", "/settings", chat.hamlet, enable_drafts_synchronization=True)
    assert (await api_ok(chat, "GET", "/drafts", chat.hamlet))["drafts"] == []
    await api_ok(chat, "POST", "/drafts", chat.hamlet, drafts=mine[:1])
    assert await draft_owners(chat) == sorted([chat.cordelia.id, chat.hamlet.id])


async def test_other_settings_keep_drafts(chat: ChatHarness) -> None:
    await api_ok(
        chat,
        "POST",
        "/drafts",
        chat.hamlet,
        drafts=[{"type": "", "to": [], "topic": "", "content": "kept"}],
    )
    await api_ok(chat, "PATCH", "/settings", chat.hamlet, enable_drafts_synchronization=True)
    await api_ok(chat, "PATCH", "/settings", chat.hamlet, timezone="Europe/Paris")
    assert await draft_owners(chat) == [chat.hamlet.id]
