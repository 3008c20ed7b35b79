"""Sending a message queues a `message` event for every recipient, with that recipient's flags."""

from __future__ import annotations

import pytest

from tests.chat.conftest import ChatHarness, listen

pytestmark = pytest.mark.anyio


async def test_message_events_reach_recipients_only(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    hamlet_q = await listen(chat, chat.hamlet, ["message"])
    cordelia_q = await listen(chat, chat.cordelia, None, apply_markdown=False)
    iago_q = await listen(chat, chat.iago, ["message"])
    typing_only = await listen(chat, chat.cordelia, ["typing"])
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "hi @**Cordelia, Lear's daughter**")
    [mine] = await hamlet_q.events()
    [theirs] = await cordelia_q.events()
    assert mine["type"] == "message" and mine["message"]["id"] == mid
    assert mine["flags"] == ["read"]
    assert mine["message"]["content"].startswith('<p>hi <span class="user-mention"')
    assert theirs["flags"] == ["mentioned"]
    assert theirs["message"]["content"] == "hi @**Cordelia, Lear's daughter**"
    assert theirs["message"]["content_type"] == "text/x-markdown"
    assert theirs["message"]["display_recipient"] == "Verona"
    assert theirs["message"]["subject"] == "t"
    for private in ("flags", "raw_content", "avatar_is_gravatar"):
        assert private not in theirs["message"]
    assert await iago_q.events() == []
    assert await typing_only.events() == []
    await chat.send_dm(chat.hamlet, [chat.iago], "psst")
    assert [e["id"] for e in await hamlet_q.events()] == [0, 1]
    [dm] = await iago_q.events()
    assert dm["flags"] == []
    assert dm["message"]["type"] == "private"
    assert [e["id"] for e in await hamlet_q.events(last_event_id=0)] == [1]


async def test_rolled_back_send_publishes_nothing(chat: ChatHarness) -> None:
    queue = await listen(chat, chat.hamlet)
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to="nowhere", topic="x", content="x"
    )
    assert resp.status_code == 400
    assert await queue.events() == []


async def test_edit_reaches_subscribers_reading_public_history(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "before cordelia joined")
    await chat.subscribe(chat.cordelia, "Verona")
    cordelia = await listen(chat, chat.cordelia, ["update_message"])
    outsider = await listen(chat, chat.iago, ["update_message"])
    resp = await chat.patch(f"/messages/{mid}", chat.hamlet, content="edited")
    assert resp.status_code == 200, resp.text
    [event] = await cordelia.events()
    assert event["message_id"] == mid
    assert event["flags"] == ["read"]
    assert await outsider.events() == []
