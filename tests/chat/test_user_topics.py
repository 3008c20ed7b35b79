"""Topic visibility policies: POST /user_topics, the legacy PATCH
/users/me/subscriptions/muted_topics, their events, the register state, and muting in
`first_unread` and `in:home`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.chat.conftest import (
    ChatHarness,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio


async def state(chat: ChatHarness, user: Any, fetch: list[str]) -> dict[str, Any]:
    return await api_ok(chat, "POST", "/register", user, fetch_event_types=fetch, event_types=[])


async def test_user_topics_policies_state_and_events(chat: ChatHarness) -> None:
    verona = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    both = await listen(chat, chat.hamlet, ["user_topic", "muted_topics"])
    legacy = await listen(chat, chat.hamlet, ["muted_topics"])
    everything = await listen(chat, chat.hamlet)
    await api_ok(
        chat, "POST", "/user_topics", chat.hamlet, stream_id=verona, topic="Lunch",
        visibility_policy=1,
    )  # fmt: skip
    [event] = await both.events()
    assert event["type"] == "user_topic"
    assert {k: v for k, v in event.items() if k not in {"id", "last_updated"}} == {
        "type": "user_topic",
        "stream_id": verona,
        "topic_name": "Lunch",
        "visibility_policy": 1,
    }
    [old] = await legacy.events()
    assert old["type"] == "muted_topics"
    assert old["muted_topics"] == [["Verona", "Lunch", event["last_updated"]]]
    assert [e["type"] for e in await everything.events()] == ["muted_topics", "user_topic"]

    await api_ok(
        chat, "POST", "/user_topics", chat.hamlet, stream_id=verona, topic="dinner",
        visibility_policy=3,
    )  # fmt: skip
    # Same topic, other case: the policy is replaced, not duplicated.
    await api_ok(
        chat, "POST", "/user_topics", chat.hamlet, stream_id=verona, topic="DINNER",
        visibility_policy=2,
    )  # fmt: skip
    body = await state(chat, chat.hamlet, ["user_topic", "muted_topics"])
    assert "muted_topics" not in body
    policies = {(t["topic_name"], t["visibility_policy"]) for t in body["user_topics"]}
    assert policies == {("Lunch", 1), ("DINNER", 2)}
    body = await state(chat, chat.hamlet, ["muted_topics"])
    assert [t[:2] for t in body["muted_topics"]] == [["Verona", "Lunch"]]
    assert (await state(chat, chat.cordelia, ["user_topic"]))["user_topics"] == []

    # 0 removes the policy.
    await api_ok(
        chat, "POST", "/user_topics", chat.hamlet, stream_id=verona, topic="lunch",
        visibility_policy=0,
    )  # fmt: skip
    body = await state(chat, chat.hamlet, ["user_topic"])
    assert [t["topic_name"] for t in body["user_topics"]] == ["DINNER"]


async def test_user_topics_errors(chat: ChatHarness) -> None:
    verona = await chat.make_stream("Verona", [chat.hamlet])
    secret = await chat.make_stream("secret", [chat.iago], invite_only=True)

    async def post(**params: Any) -> Any:
        return await chat.post("/user_topics", chat.hamlet, **params)

    assert_json_error(
        await post(stream_id=verona, topic="t", visibility_policy=7), "Invalid visibility_policy"
    )
    assert_json_error(
        await post(stream_id=verona, topic="x" * 61, visibility_policy=1),
        "topic is too long (limit: 60 characters)",
    )
    assert_json_error(
        await post(stream_id=verona, visibility_policy=1),
        "Missing 'topic' argument",
        code="REQUEST_VARIABLE_MISSING",
    )
    assert_json_error(
        await post(stream_id=secret, topic="t", visibility_policy=1), "Invalid stream ID"
    )
    assert_json_error(
        await post(stream_id=9999, topic="t", visibility_policy=1), "Invalid stream ID"
    )
    assert_json_error(
        await post(stream_id=9999, topic="t", visibility_policy=0), "Invalid stream ID"
    )
    # Removing a policy needs only a stream of the realm.
    assert_json_success(await post(stream_id=secret, topic="t", visibility_policy=0))


async def test_legacy_muted_topics_endpoint(chat: ChatHarness) -> None:
    verona = await chat.make_stream("Verona", [chat.hamlet])
    path = "/users/me/subscriptions/muted_topics"
    await api_ok(chat, "PATCH", path, chat.hamlet, stream="Verona", topic="t1", op="add")
    await api_ok(chat, "PATCH", path, chat.hamlet, stream_id=verona, topic="t2", op="add")
    # Muting again is not an error since feature level 170.
    await api_ok(chat, "PATCH", path, chat.hamlet, stream_id=verona, topic="t2", op="add")
    body = await state(chat, chat.hamlet, ["user_topic"])
    assert sorted((t["topic_name"], t["visibility_policy"]) for t in body["user_topics"]) == [
        ("t1", 1),
        ("t2", 1),
    ]
    await api_ok(chat, "PATCH", path, chat.hamlet, stream="verona", topic="T1", op="remove")
    body = await state(chat, chat.hamlet, ["muted_topics"])
    assert [t[:2] for t in body["muted_topics"]] == [["Verona", "t2"]]

    assert_json_error(
        await chat.patch(path, chat.hamlet, topic="t", op="add"), "Missing 'stream_id' argument"
    )
    body = assert_json_error(
        await chat.patch(path, chat.hamlet, stream="Verona", stream_id=verona, topic="t", op="add"),
        "Unsupported parameter combination: stream_id, stream",
        code="INCOMPATIBLE_PARAMETERS",
    )
    assert body["parameters"] == "stream_id, stream"
    assert_json_error(
        await chat.patch(path, chat.hamlet, stream="Verona", topic="t", op="toggle"), "Invalid op"
    )
    assert_json_error(
        await chat.patch(path, chat.hamlet, stream="Nowhere", topic="t", op="add"),
        "Invalid stream name 'Nowhere'",
    )
    assert_json_error(
        await chat.patch(path, chat.hamlet, stream="Nowhere", topic="t", op="remove"),
        "Topic is not muted",
    )


async def test_muted_topics_skipped_by_first_unread_and_in_home(chat: ChatHarness) -> None:
    verona = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    muted = [await chat.send_stream(chat.hamlet, "Verona", "Muted", f"m{i}") for i in range(2)]
    loud = await chat.send_stream(chat.hamlet, "Verona", "loud", "hear me")
    dm = await chat.send_dm(chat.hamlet, [chat.cordelia], "psst")
    me = chat.cordelia

    async def first_unread(narrow: list[Any]) -> Any:
        body = await api_ok(
            chat, "GET", "/messages", me, anchor="first_unread", num_before=0, num_after=0,
            narrow=narrow,
        )  # fmt: skip
        return body["anchor"]

    async def home() -> list[int]:
        body = await api_ok(
            chat, "GET", "/messages", me, anchor="newest", num_before=10, num_after=0,
            narrow=[["in", "home"]],
        )  # fmt: skip
        return [m["id"] for m in body["messages"]]

    assert await first_unread([]) == muted[0]
    assert await home() == [*muted, loud, dm]
    await api_ok(
        chat, "POST", "/user_topics", me, stream_id=verona, topic="muted", visibility_policy=1
    )
    assert await first_unread([]) == loud
    assert await first_unread([["stream", "Verona"]]) == loud
    # A narrow to the muted topic itself: nothing unread outside muted topics, so "newest".
    body = await api_ok(
        chat, "GET", "/messages", me, anchor="first_unread", num_before=5, num_after=0,
        narrow=[["stream", "Verona"], ["topic", "Muted"]],
    )  # fmt: skip
    assert [m["id"] for m in body["messages"]] == muted
    assert await home() == [loud, dm]
    # The stream narrow with in:home leaves the muted topic out too; in:all keeps it.
    body = await api_ok(
        chat, "GET", "/messages", me, anchor="newest", num_before=10, num_after=0,
        narrow=[["stream", "Verona"], ["in", "home"]],
    )  # fmt: skip
    assert [m["id"] for m in body["messages"]] == [loud]
    body = await api_ok(
        chat, "GET", "/messages", me, anchor="newest", num_before=10, num_after=0,
        narrow=[["in", "all"]],
    )  # fmt: skip
    assert [m["id"] for m in body["messages"]] == [*muted, loud, dm]
    # Unmuting brings it back; another user's mutes never matter.
    await api_ok(
        chat, "POST", "/user_topics", chat.hamlet, stream_id=verona, topic="loud",
        visibility_policy=1,
    )  # fmt: skip
    await api_ok(
        chat, "POST", "/user_topics", me, stream_id=verona, topic="Muted", visibility_policy=0
    )
    assert await first_unread([]) == muted[0]
    assert await home() == [*muted, loud, dm]
