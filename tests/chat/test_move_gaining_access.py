"""Users who gain access to messages through a stream move, as Zulip 7 treats them.

Zulip sends them no `message` events. Moving into a stream with protected history gives its
subscribers delivery rows flagged read (being subscribed when the messages arrive is their only
access) and the `update_message` event with those flags; moving into a stream with public history
gives them nothing: they read the moved messages as history.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from tests.chat.conftest import ChatHarness, api_ok, listen

pytestmark = pytest.mark.anyio

UM = schema.user_message.c


async def delivery_flags(chat: ChatHarness, user_id: int, message_id: int) -> int | None:
    return await chat.runtime.db.read(
        lambda conn: conn.scalar(
            sa.select(UM.flags).where(UM.user_id == user_id, UM.message_id == message_id)
        )
    )


async def test_move_into_protected_history_stream(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    vault = await chat.make_stream(
        "vault", [chat.hamlet, chat.iago], invite_only=True, history_public_to_subscribers=False
    )
    ids = [await chat.send_stream(chat.hamlet, "Verona", "t", f"m{i}") for i in range(2)]
    probe = await listen(chat, chat.iago, ["message", "update_message"])
    await api_ok(
        chat,
        "PATCH",
        f"/messages/{ids[0]}",
        chat.hamlet,
        stream_id=vault,
        propagate_mode="change_all",
        send_notification_to_new_thread=False,
    )
    events = await probe.events()
    assert [e["type"] for e in events] == ["update_message"]
    [event] = events
    assert event["message_ids"] == ids and event["flags"] == ["read"]
    assert event["new_stream_id"] == vault
    for mid in ids:
        assert await delivery_flags(chat, chat.iago.id, mid) == 1  # read
    body = await api_ok(chat, "GET", f"/messages/{ids[1]}", chat.iago)
    assert body["message"]["flags"] == ["read"]


async def test_move_into_public_history_stream(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    denmark = await chat.make_stream("Denmark", [chat.hamlet, chat.iago])
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "moving")
    probe = await listen(chat, chat.iago, ["message", "update_message"])
    await api_ok(
        chat,
        "PATCH",
        f"/messages/{mid}",
        chat.hamlet,
        stream_id=denmark,
        send_notification_to_new_thread=False,
    )
    assert await probe.events() == []
    assert await delivery_flags(chat, chat.iago.id, mid) is None
    body = await api_ok(chat, "GET", f"/messages/{mid}", chat.iago)
    assert body["message"]["flags"] == ["read", "historical"]
    fetched = await api_ok(
        chat,
        "GET",
        "/messages",
        chat.iago,
        anchor="newest",
        num_before=5,
        num_after=0,
        narrow=[["stream", "Denmark"]],
    )
    assert [m["id"] for m in fetched["messages"]] == [mid]
