"""Sending a message queues a `message` event for every recipient, with that recipient's flags."""

from __future__ import annotations

import pytest

from tests.chat.conftest import ChatHarness

pytestmark = pytest.mark.anyio


async def test_message_events_reach_recipients_only(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    bus = chat.runtime.events
    hamlet_q = bus.register(chat.hamlet.id, ["message"])
    cordelia_q = bus.register(chat.cordelia.id, None)
    iago_q = bus.register(chat.iago.id, ["message"])
    typing_only = bus.register(chat.cordelia.id, ["typing"])
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "hi @**Cordelia, Lear's daughter**")
    [mine] = hamlet_q.events
    [theirs] = cordelia_q.events
    assert mine["type"] == "message" and mine["message"]["id"] == mid
    assert mine["flags"] == ["read"]
    assert theirs["flags"] == ["mentioned"]
    assert theirs["message"]["display_recipient"] == "Verona"
    assert theirs["message"]["subject"] == "t"
    assert "flags" not in theirs["message"]
    assert not iago_q.events
    assert not typing_only.events
    await chat.send_dm(chat.hamlet, [chat.iago], "psst")
    assert [e["id"] for e in hamlet_q.events] == [0, 1]
    assert iago_q.events[0]["flags"] == []
    assert iago_q.events[0]["message"]["type"] == "private"
    hamlet_q.acknowledge(0)
    assert [e["id"] for e in hamlet_q.events] == [1]


async def test_rolled_back_send_publishes_nothing(chat: ChatHarness) -> None:
    queue = chat.runtime.events.register(chat.hamlet.id, None)
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to="nowhere", topic="x", content="x"
    )
    assert resp.status_code == 400
    assert not queue.events
