"""POST /register, GET /events and DELETE /events, in-process and on Redis."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from atrium.chat.events import state as state_module
from atrium.settings import Settings
from tests.chat.conftest import (
    ChatHarness,
    api_ok,
    assert_json_error,
    assert_json_success,
    chat_settings,
)

pytestmark = pytest.mark.anyio

REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture(params=["memory", "redis"])
def settings(
    request: pytest.FixtureRequest, data_dir: Path, database_url: str | None
) -> Iterator[Settings]:
    if request.param == "memory":
        yield chat_settings(data_dir, database_url)
        return
    try:
        redis.Redis.from_url(REDIS_URL).ping()
    except redis.RedisError as exc:
        import os

        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis is required in CI: {exc}")
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc}")
    yield chat_settings(data_dir, database_url, redis_url=REDIS_URL)


async def register(chat: ChatHarness, user: Any, **params: Any) -> dict[str, Any]:
    return assert_json_success(await chat.post("/register", user, **params))


async def poll(
    chat: ChatHarness, user: Any, queue_id: str, last_event_id: int = -1, dont_block: bool = True
) -> list[dict[str, Any]]:
    body = assert_json_success(
        await chat.get(
            "/events", user, queue_id=queue_id, last_event_id=last_event_id, dont_block=dont_block
        )
    )
    events: list[dict[str, Any]] = body["events"]
    return events


async def test_register_returns_queue_and_state(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    body = await api_ok(
        chat,
        "POST",
        "/register",
        chat.hamlet,
        fetch_event_types=["realm", "subscription", "message", "realm_user"],
    )
    assert isinstance(body["queue_id"], str)
    assert body["last_event_id"] == -1
    assert body["zulip_feature_level"] == 185
    assert body["max_message_length"] == 10000
    assert body["max_topic_length"] == 60
    assert body["max_stream_name_length"] == 60
    assert body["max_stream_description_length"] == 1024
    assert body["realm_edit_topic_policy"] == 5
    assert body["realm_message_content_edit_limit_seconds"] == 600
    assert [s["name"] for s in body["subscriptions"]] == ["Verona"]
    assert body["max_message_id"] == -1
    assert body["user_id"] == chat.hamlet.id
    assert chat.cordelia.email in [u["email"] for u in body["realm_users"]]
    assert "unread_msgs" not in body
    body = await register(chat, chat.hamlet, event_types=[])
    assert body["queue_id"] is None


async def test_unread_and_recent_conversations_state(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    s1 = await chat.send_stream(chat.cordelia, "Verona", "lunch", "hi @**King Hamlet**")
    d1 = await chat.send_dm(chat.cordelia, [chat.hamlet], "psst")
    g1 = await chat.send_dm(chat.cordelia, [chat.hamlet, chat.iago], "group")
    body = await register(
        chat,
        chat.hamlet,
        fetch_event_types=[
            "update_message_flags",
            "recent_private_conversations",
            "starred_messages",
        ],
    )
    unread = body["unread_msgs"]
    assert unread["count"] == 3
    assert unread["streams"] == [
        {
            "stream_id": unread["streams"][0]["stream_id"],
            "topic": "lunch",
            "unread_message_ids": [s1],
        }
    ]
    assert unread["pms"] == [
        {
            "other_user_id": chat.cordelia.id,
            "sender_id": chat.cordelia.id,
            "unread_message_ids": [d1],
        }
    ]
    ids = ",".join(str(i) for i in sorted([chat.hamlet.id, chat.cordelia.id, chat.iago.id]))
    assert unread["huddles"] == [{"user_ids_string": ids, "unread_message_ids": [g1]}]
    assert unread["mentions"] == [s1]
    assert body["starred_messages"] == []
    assert body["recent_private_conversations"] == [
        {"max_message_id": g1, "user_ids": sorted([chat.cordelia.id, chat.iago.id])},
        {"max_message_id": d1, "user_ids": [chat.cordelia.id]},
    ]


async def test_unread_msgs_keeps_the_newest_up_to_the_cap(
    chat: ChatHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Zulip sends at most MAX_UNREAD_MESSAGES (50,000), the newest, and says older ones are
    # missing; a cap of 3 shows the same on five messages.
    monkeypatch.setattr(state_module, "MAX_UNREAD_MESSAGES", 3)
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    ids = [await chat.send_stream(chat.cordelia, "Verona", "t", f"m{i}") for i in range(5)]
    d1 = await chat.send_dm(chat.cordelia, [chat.hamlet], "psst")
    unread = (await register(chat, chat.hamlet, fetch_event_types=["update_message_flags"]))[
        "unread_msgs"
    ]
    assert unread["count"] == 3
    assert unread["old_unreads_missing"] is True
    assert [s["unread_message_ids"] for s in unread["streams"]] == [ids[3:]]
    assert [p["unread_message_ids"] for p in unread["pms"]] == [[d1]]
    monkeypatch.setattr(state_module, "MAX_UNREAD_MESSAGES", 6)
    unread = (await register(chat, chat.hamlet, fetch_event_types=["update_message_flags"]))[
        "unread_msgs"
    ]
    assert unread["count"] == 6
    assert unread["old_unreads_missing"] is True
    monkeypatch.setattr(state_module, "MAX_UNREAD_MESSAGES", 7)
    unread = (await register(chat, chat.hamlet, fetch_event_types=["update_message_flags"]))[
        "unread_msgs"
    ]
    assert unread["count"] == 6
    assert unread["old_unreads_missing"] is False


async def test_events_flow_and_acknowledgement(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    queue_id = (await register(chat, chat.cordelia, event_types=["message"]))["queue_id"]
    assert await poll(chat, chat.cordelia, queue_id) == []
    m1 = await chat.send_stream(chat.hamlet, "Verona", "t", "one")
    m2 = await chat.send_stream(chat.hamlet, "Verona", "t", "two")
    events = await poll(chat, chat.cordelia, queue_id)
    assert [(e["id"], e["message"]["id"]) for e in events] == [(0, m1), (1, m2)]
    assert events[0]["flags"] == []
    # Re-polling with the last id seen acknowledges; the queue drops what was acknowledged.
    assert [e["id"] for e in await poll(chat, chat.cordelia, queue_id, last_event_id=0)] == [1]
    assert await poll(chat, chat.cordelia, queue_id, last_event_id=1) == []
    assert_json_success(await chat.delete("/events", chat.cordelia, queue_id=queue_id))
    resp = await chat.get("/events", chat.cordelia, queue_id=queue_id, dont_block=True)
    body = assert_json_error(resp, f"Bad event queue ID: {queue_id}", code="BAD_EVENT_QUEUE_ID")
    assert body["queue_id"] == queue_id


async def test_bad_and_foreign_queues(chat: ChatHarness) -> None:
    resp = await chat.get("/events", chat.hamlet, queue_id="nope", dont_block=True)
    assert_json_error(resp, "Bad event queue ID: nope", code="BAD_EVENT_QUEUE_ID")
    resp = await chat.get("/events", chat.hamlet, dont_block=True)
    assert_json_error(resp, "Missing 'queue_id' argument", code="REQUEST_VARIABLE_MISSING")
    queue_id = (await register(chat, chat.cordelia))["queue_id"]
    resp = await chat.get("/events", chat.hamlet, queue_id=queue_id, dont_block=True)
    assert_json_error(resp, f"Bad event queue ID: {queue_id}", code="BAD_EVENT_QUEUE_ID")
    resp = await chat.delete("/events", chat.hamlet, queue_id=queue_id)
    assert_json_error(resp, f"Bad event queue ID: {queue_id}", code="BAD_EVENT_QUEUE_ID")


async def test_local_id_echo_reaches_only_that_queue(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    mine = (await register(chat, chat.hamlet, event_types=["message"]))["queue_id"]
    other = (await register(chat, chat.hamlet, event_types=["message"]))["queue_id"]
    theirs = (await register(chat, chat.cordelia, event_types=["message"]))["queue_id"]
    resp = await chat.post(
        "/messages",
        chat.hamlet,
        type="stream",
        to="Verona",
        topic="t",
        content="x",
        queue_id=mine,
        local_id="123.01",
    )
    assert_json_success(resp)
    [event] = await poll(chat, chat.hamlet, mine)
    assert event["local_message_id"] == "123.01"
    [event] = await poll(chat, chat.hamlet, other)
    assert "local_message_id" not in event
    [event] = await poll(chat, chat.cordelia, theirs)
    assert "local_message_id" not in event
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to="Verona", topic="t", content="x", queue_id=mine
    )
    assert_json_error(resp, "Missing 'local_id' argument", code="REQUEST_VARIABLE_MISSING")


async def test_long_poll_wakes_up_and_heartbeats(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    queue_id = (await register(chat, chat.cordelia, event_types=["message"]))["queue_id"]
    waiting = asyncio.create_task(
        chat.get("/events", chat.cordelia, queue_id=queue_id, last_event_id=-1)
    )
    await asyncio.sleep(0.2)
    assert not waiting.done()
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "wake up")
    resp = await asyncio.wait_for(waiting, 5)
    [event] = assert_json_success(resp)["events"]
    assert event["message"]["id"] == mid
    chat.runtime.heartbeat_seconds = 0.3
    body = assert_json_success(
        await chat.get("/events", chat.cordelia, queue_id=queue_id, last_event_id=event["id"])
    )
    assert body["events"] == [{"type": "heartbeat", "id": event["id"] + 1}]


async def test_event_types_filter_and_markdown_options(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    typing_only = (await register(chat, chat.cordelia, event_types=["typing"]))["queue_id"]
    raw = (
        await register(
            chat, chat.cordelia, event_types=["message"], apply_markdown=False, client_gravatar=True
        )
    )["queue_id"]
    html = (await register(chat, chat.cordelia, event_types=["message"], apply_markdown=True))[
        "queue_id"
    ]
    await chat.send_stream(chat.hamlet, "Verona", "t", "**bold**")
    assert await poll(chat, chat.cordelia, typing_only) == []
    [event] = await poll(chat, chat.cordelia, raw)
    assert event["message"]["content"] == "**bold**"
    assert event["message"]["avatar_url"] is None
    [event] = await poll(chat, chat.cordelia, html)
    assert event["message"]["content"] == "<p><strong>bold</strong></p>"
    assert event["message"]["avatar_url"].startswith("https://secure.gravatar.com/")


async def test_private_stream_messages_reach_subscribers_only(chat: ChatHarness) -> None:
    await chat.make_stream("secret", [chat.iago], invite_only=True)
    queues = {
        u.email: (await register(chat, u, event_types=["message"]))["queue_id"]
        for u in (chat.hamlet, chat.desdemona, chat.polonius, chat.iago)
    }
    await chat.send_stream(chat.iago, "secret", "t", "classified")
    for user in (chat.hamlet, chat.desdemona, chat.polonius):
        assert await poll(chat, user, queues[user.email]) == []
    assert len(await poll(chat, chat.iago, queues[chat.iago.email])) == 1


async def test_narrowed_queue_gets_matching_messages_only(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    await chat.make_stream("Denmark", [chat.hamlet, chat.cordelia])
    queue_id = (
        await register(
            chat,
            chat.cordelia,
            event_types=["message"],
            narrow=[["stream", "verona"], ["topic", "Lunch"]],
        )
    )["queue_id"]
    dms = (await register(chat, chat.cordelia, event_types=["message"], narrow=[["is", "dm"]]))[
        "queue_id"
    ]
    match = await chat.send_stream(chat.hamlet, "Verona", "lunch", "yes")
    await chat.send_stream(chat.hamlet, "Verona", "dinner", "no")
    await chat.send_stream(chat.hamlet, "Denmark", "lunch", "no")
    dm = await chat.send_dm(chat.hamlet, [chat.cordelia], "psst")
    assert [e["message"]["id"] for e in await poll(chat, chat.cordelia, queue_id)] == [match]
    assert [e["message"]["id"] for e in await poll(chat, chat.cordelia, dms)] == [dm]
    resp = await chat.post("/register", chat.cordelia, narrow=[["search", "x"]])
    assert_json_error(
        resp,
        "Invalid narrow operator: search:x is not supported for event queues",
        code="BAD_NARROW",
    )
    resp = await chat.post("/register", chat.cordelia, narrow=[["bogus", "x"]])
    assert_json_error(resp, "Invalid narrow operator: unknown operator bogus", code="BAD_NARROW")


async def test_register_state_of_administration(chat: ChatHarness) -> None:
    stream_id = await chat.make_stream("Verona", [chat.hamlet])
    assert_json_success(await chat.post("/default_streams", chat.iago, stream_id=stream_id))
    assert_json_success(
        await chat.post(
            "/realm/playgrounds",
            chat.iago,
            name="Python",
            pygments_language="python",
            url_prefix="https://python.example/?code=",
        )
    )
    assert_json_success(
        await chat.post(
            "/realm/filters",
            chat.iago,
            pattern="#(?P<id>[0-9]+)",
            url_template="https://tracker.example/{id}",
        )
    )
    body = await api_ok(
        chat,
        "POST",
        "/register",
        chat.hamlet,
        fetch_event_types=[
            "default_streams",
            "realm_playgrounds",
            "realm_linkifiers",
            "realm_user_groups",
            "user_settings",
        ],
    )
    assert [s["name"] for s in body["realm_default_streams"]] == ["Verona"]
    assert [p["name"] for p in body["realm_playgrounds"]] == ["Python"]
    assert body["realm_playgrounds"][0]["url_prefix"] == "https://python.example/?code="
    assert body["realm_linkifiers"][0]["url_template"] == "https://tracker.example/{id}"
    names = [g["name"] for g in body["realm_user_groups"]]
    assert "@role:administrators" in names
    assert body["user_settings"]["enable_drafts_synchronization"] is True


async def test_register_state_of_drafts_and_scheduled_messages(chat: ChatHarness) -> None:
    import time

    stream_id = await chat.make_stream("Verona", [chat.hamlet])
    draft = {"type": "stream", "to": [stream_id], "topic": "t", "content": "draft text"}
    assert_json_success(await chat.post("/drafts", chat.hamlet, drafts=[draft]))
    when = int(time.time()) + 3600
    assert_json_success(
        await chat.post(
            "/scheduled_messages",
            chat.hamlet,
            type="stream",
            to=stream_id,
            topic="later",
            content="scheduled text",
            scheduled_delivery_timestamp=when,
        )
    )
    body = await api_ok(
        chat, "POST", "/register", chat.hamlet, fetch_event_types=["drafts", "scheduled_messages"]
    )
    assert [d["content"] for d in body["drafts"]] == ["draft text"]
    [scheduled] = body["scheduled_messages"]
    assert scheduled["content"] == "scheduled text"
    assert scheduled["scheduled_delivery_timestamp"] == when
    # Another user sees neither.
    body = await register(chat, chat.cordelia, fetch_event_types=["drafts", "scheduled_messages"])
    assert body["drafts"] == [] and body["scheduled_messages"] == []
