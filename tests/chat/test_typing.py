"""POST /typing: direct and stream typing notices, their audiences and the senders' settings."""

from __future__ import annotations

import pytest

from tests.chat.conftest import ChatHarness, api_ok, assert_json_error, listen

pytestmark = pytest.mark.anyio


async def test_direct_typing_reaches_the_participants(chat: ChatHarness) -> None:
    cordelia_q = await listen(chat, chat.cordelia, ["typing"])
    hamlet_q = await listen(chat, chat.hamlet, ["typing"])
    iago_q = await listen(chat, chat.iago, ["typing"])
    await api_ok(chat, "POST", "/typing", chat.hamlet, op="start", to=[chat.cordelia.id])
    await api_ok(
        chat, "POST", "/typing", chat.hamlet, type="private", op="stop", to=[chat.cordelia.id]
    )
    events = await cordelia_q.events()
    assert [(e["op"], e["message_type"]) for e in events] == [
        ("start", "private"),
        ("stop", "private"),
    ]
    assert events[0]["sender"] == {"user_id": chat.hamlet.id, "email": chat.hamlet.email}
    assert events[0]["recipients"] == [
        {"user_id": chat.hamlet.id, "email": chat.hamlet.email},
        {"user_id": chat.cordelia.id, "email": chat.cordelia.email},
    ]
    assert len(await hamlet_q.events()) == 2  # Zulip tells the typist too
    assert await iago_q.events() == []


async def test_stream_typing_reaches_other_subscribers(chat: ChatHarness) -> None:
    sid = await chat.make_stream("lobby", [chat.hamlet, chat.cordelia])
    secret = await chat.make_stream("secret", [chat.iago], invite_only=True)
    cordelia_q = await listen(chat, chat.cordelia, ["typing"])
    hamlet_q = await listen(chat, chat.hamlet, ["typing"])
    shiva_q = await listen(chat, chat.shiva, ["typing"])
    await api_ok(
        chat, "POST", "/typing", chat.hamlet, type="stream", op="start", to=[sid], topic="hi"
    )
    [event] = await cordelia_q.events()
    assert event["message_type"] == "stream" and event["stream_id"] == sid
    assert event["topic"] == "hi" and event["sender"]["user_id"] == chat.hamlet.id
    assert await hamlet_q.events() == [] and await shiva_q.events() == []
    # A private stream the typist cannot read does not exist for them.
    resp = await chat.post(
        "/typing", chat.hamlet, type="stream", op="start", to=[secret], topic="x"
    )
    assert_json_error(resp, "Invalid stream ID")


async def test_typing_errors_and_settings(chat: ChatHarness) -> None:
    cases = [
        ({"op": "begin", "to": [chat.cordelia.id]}, "Invalid op"),
        ({"op": "start", "type": "group", "to": [chat.cordelia.id]}, "Invalid type"),
        ({"op": "start", "to": []}, "Empty 'to' list"),
        ({"op": "start", "to": [999999]}, "Invalid user ID 999999"),
        (
            {"op": "start", "type": "stream", "to": [1, 2], "topic": "x"},
            "Invalid 'to' argument for stream typing",
        ),
        ({"op": "start", "type": "stream", "to": [1]}, "Missing topic"),
    ]
    for params, msg in cases:
        assert_json_error(await chat.post("/typing", chat.hamlet, **params), msg)
    assert_json_error(
        await chat.post("/typing", chat.hamlet, to=[chat.cordelia.id]),
        "Missing 'op' argument",
        code="REQUEST_VARIABLE_MISSING",
    )
    await api_ok(chat, "PATCH", "/settings", chat.hamlet, send_private_typing_notifications=False)
    assert_json_error(
        await chat.post("/typing", chat.hamlet, op="start", to=[chat.cordelia.id]),
        "User has disabled typing notifications for direct messages",
    )
    await api_ok(chat, "PATCH", "/settings", chat.hamlet, send_stream_typing_notifications=False)
    sid = await chat.make_stream("lobby", [chat.hamlet])
    assert_json_error(
        await chat.post("/typing", chat.hamlet, type="stream", op="start", to=[sid], topic="x"),
        "User has disabled typing notifications for stream messages",
    )
