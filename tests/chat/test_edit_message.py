"""PATCH /messages/{id}: content edits, topic and stream moves, propagate modes, permissions and
time limits, resolve/unresolve, Notification Bot breadcrumbs, edit history, events; DELETE too."""

from __future__ import annotations

import time
from typing import Any

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import (
    POLICY_ADMINS_ONLY,
    POLICY_EVERYONE,
    POLICY_MEMBERS_ONLY,
    POLICY_MODERATORS_ONLY,
    POLICY_NOBODY,
)
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error, listen

pytestmark = pytest.mark.anyio

M = schema.message.c


async def set_realm(chat: ChatHarness, **values: Any) -> None:
    await chat.runtime.db.write(lambda conn: conn.execute(sa.update(schema.realm).values(**values)))


async def age(chat: ChatHarness, message_ids: list[int], seconds: float) -> None:
    """Pretend these messages were sent `seconds` ago."""
    await chat.runtime.db.write(
        lambda conn: conn.execute(
            sa.update(schema.message)
            .where(M.id.in_(message_ids))
            .values(date_sent=time.time() - seconds)
        )
    )


async def message_row(chat: ChatHarness, message_id: int) -> Any:
    return await chat.runtime.db.read(
        lambda conn: conn.one(sa.select(schema.message).where(M.id == message_id))
    )


async def topic_ids(chat: ChatHarness, stream_id: int, topic: str) -> list[int]:
    return await chat.runtime.db.read(
        lambda conn: conn.scalars(
            sa.select(M.id).where(M.stream_id == stream_id, M.topic == topic).order_by(M.id)
        )
    )


async def snapshot(chat: ChatHarness) -> list[Any]:
    def read(conn: Any) -> list[Any]:
        return [
            conn.all(sa.select(schema.message).order_by(M.id)),
            conn.all(sa.select(schema.user_message).order_by("user_id", "message_id")),
        ]

    return await chat.runtime.db.read(read)


@pytest.fixture
async def verona(chat: ChatHarness) -> int:
    return await chat.make_stream("Verona", [chat.hamlet, chat.cordelia, chat.iago])


async def test_content_edit_rerenders_and_keeps_history(chat: ChatHarness, verona: int) -> None:
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "first")
    probe = await listen(chat, chat.cordelia, ["update_message"])
    await api_ok(chat, "PATCH", f"/messages/{mid}", chat.hamlet, content="Edited **content**")
    row = await message_row(chat, mid)
    assert row["content"] == "Edited **content**"
    assert row["rendered_content"] == "<p>Edited <strong>content</strong></p>"
    body = await api_ok(chat, "GET", f"/messages/{mid}", chat.cordelia)
    message = body["message"]
    assert message["last_edit_timestamp"] >= int(time.time()) - 5
    [entry] = message["edit_history"]
    assert entry["prev_content"] == "first"
    assert entry["prev_rendered_content"] == "<p>first</p>"
    assert entry["user_id"] == chat.hamlet.id
    [event] = await probe.events()
    assert event["type"] == "update_message"
    assert event["message_id"] == mid and event["message_ids"] == [mid]
    assert event["orig_content"] == "first"
    assert event["rendered_content"] == "<p>Edited <strong>content</strong></p>"
    assert event["stream_id"] == verona and event["stream_name"] == "Verona"
    assert event["rendering_only"] is False
    assert event["user_id"] == chat.hamlet.id
    assert event["flags"] == []
    assert "propagate_mode" not in event and "subject" not in event


async def test_content_edit_updates_mentions_and_search(chat: ChatHarness, verona: int) -> None:
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "hello there")
    await api_ok(
        chat,
        "PATCH",
        f"/messages/{mid}",
        chat.hamlet,
        content="@**Cordelia, Lear's daughter** zebra",
    )
    body = await api_ok(chat, "GET", f"/messages/{mid}", chat.cordelia)
    assert "mentioned" in body["message"]["flags"]
    found = await api_ok(
        chat,
        "GET",
        "/messages",
        chat.cordelia,
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow=[{"operator": "search", "operand": "zebra"}],
    )
    assert [m["id"] for m in found["messages"]] == [mid]


async def test_emptied_content_becomes_deleted(chat: ChatHarness, verona: int) -> None:
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "oops")
    await api_ok(chat, "PATCH", f"/messages/{mid}", chat.hamlet, content="  ")
    assert (await message_row(chat, mid))["content"] == "(deleted)"


@pytest.mark.parametrize(
    ("params", "msg"),
    [
        ({}, "Nothing to change"),
        ({"content": "x", "stream_id": 0}, "Cannot change message content while changing stream"),
        (
            {"content": "x", "propagate_mode": "change_all"},
            "Invalid propagate_mode without topic edit",
        ),
        ({"topic": "t"}, "Nothing to change"),
        ({"topic": "new", "propagate_mode": "bogus"}, "Invalid propagate_mode"),
        ({"topic": "   "}, "Topic can't be empty!"),
    ],
)
async def test_request_errors_write_nothing(
    chat: ChatHarness, verona: int, params: dict[str, Any], msg: str
) -> None:
    other = await chat.make_stream("Denmark", [chat.hamlet])
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "body")
    if params.get("stream_id") == 0:
        params = {**params, "stream_id": other}
    before = await snapshot(chat)
    assert_json_error(await chat.patch(f"/messages/{mid}", chat.hamlet, **params), msg)
    assert await snapshot(chat) == before


async def test_direct_message_errors(chat: ChatHarness, verona: int) -> None:
    dm = await chat.send_dm(chat.hamlet, [chat.cordelia], "psst")
    assert_json_error(
        await chat.patch(f"/messages/{dm}", chat.hamlet, topic="x"),
        "Direct messages cannot have topics.",
    )
    assert_json_error(
        await chat.patch(f"/messages/{dm}", chat.hamlet, stream_id=verona),
        "Direct messages cannot be moved to streams.",
    )
    assert_json_error(
        await chat.patch("/messages/999999", chat.hamlet, content="x"), "Invalid message(s)"
    )
    # Someone else's DM is invisible.
    assert_json_error(
        await chat.patch(f"/messages/{dm}", chat.iago, content="x"), "Invalid message(s)"
    )
    await api_ok(chat, "PATCH", f"/messages/{dm}", chat.hamlet, content="edited dm")


async def test_content_edit_permissions(chat: ChatHarness, verona: int) -> None:
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "mine")
    # Only the sender may edit content, administrators included.
    for user in (chat.iago, chat.cordelia):
        assert_json_error(
            await chat.patch(f"/messages/{mid}", user, content="x"),
            "You don't have permission to edit this message",
        )
    await set_realm(chat, allow_message_editing=False)
    assert_json_error(
        await chat.patch(f"/messages/{mid}", chat.hamlet, content="x"),
        "Your organization has turned off message editing",
    )
    await set_realm(chat, allow_message_editing=True, message_content_edit_limit_seconds=600)
    await age(chat, [mid], 600 + 15)  # inside the 20-second grace
    await api_ok(chat, "PATCH", f"/messages/{mid}", chat.hamlet, content="in grace")
    await age(chat, [mid], 600 + 25)
    assert_json_error(
        await chat.patch(f"/messages/{mid}", chat.hamlet, content="x"),
        "The time limit for editing this message has passed",
    )
    await set_realm(chat, message_content_edit_limit_seconds=None)
    await age(chat, [mid], 10**7)
    await api_ok(chat, "PATCH", f"/messages/{mid}", chat.hamlet, content="no limit")


ROLES = ("polonius", "hamlet", "shiva", "iago", "desdemona")
# edit_topic_policy -> the roles allowed (a message someone else sent).
TOPIC_MATRIX = {
    POLICY_EVERYONE: {"polonius", "hamlet", "shiva", "iago", "desdemona"},
    POLICY_MEMBERS_ONLY: {"hamlet", "shiva", "iago", "desdemona"},
    POLICY_MODERATORS_ONLY: {"shiva", "iago", "desdemona"},
    POLICY_ADMINS_ONLY: {"iago", "desdemona"},
    POLICY_NOBODY: set(),
}


@pytest.mark.parametrize("policy", sorted(TOPIC_MATRIX))
async def test_edit_topic_policy_matrix(chat: ChatHarness, policy: int) -> None:
    everyone = [chat.users[name] for name in (*ROLES, "cordelia")]
    await chat.make_stream("Verona", everyone)
    await set_realm(chat, edit_topic_policy=policy)
    for name in ROLES:
        user = chat.users[name]
        mid = await chat.send_stream(chat.cordelia, "Verona", "t", f"for {name}")
        resp = await chat.patch(f"/messages/{mid}", user, topic=f"moved by {name}")
        if name in TOPIC_MATRIX[policy]:
            assert resp.status_code == 200, (policy, name, resp.text)
        else:
            assert_json_error(resp, "You don't have permission to edit this message")


MOVE_MATRIX = {
    POLICY_MEMBERS_ONLY: {"hamlet", "shiva", "iago", "desdemona"},
    POLICY_MODERATORS_ONLY: {"shiva", "iago", "desdemona"},
    POLICY_ADMINS_ONLY: {"iago", "desdemona"},
    POLICY_NOBODY: set(),
}


@pytest.mark.parametrize("policy", sorted(MOVE_MATRIX))
async def test_move_between_streams_policy_matrix(chat: ChatHarness, policy: int) -> None:
    everyone = [chat.users[name] for name in (*ROLES, "cordelia")]
    await chat.make_stream("Verona", everyone)
    denmark = await chat.make_stream("Denmark", everyone)
    await set_realm(chat, move_messages_between_streams_policy=policy)
    for name in ROLES:
        user = chat.users[name]
        mid = await chat.send_stream(chat.cordelia, "Verona", "t", f"for {name}")
        resp = await chat.patch(f"/messages/{mid}", user, stream_id=denmark)
        if name in MOVE_MATRIX[policy]:
            assert resp.status_code == 200, (policy, name, resp.text)
            assert (await message_row(chat, mid))["stream_id"] == denmark
        else:
            assert_json_error(resp, "You don't have permission to move this message")


@pytest.mark.parametrize("name", ROLES)
async def test_move_time_limits_by_role(chat: ChatHarness, name: str) -> None:
    everyone = [chat.users[n] for n in (*ROLES, "cordelia")]
    await chat.make_stream("Verona", everyone)
    denmark = await chat.make_stream("Denmark", everyone)
    await set_realm(
        chat,
        move_messages_within_stream_limit_seconds=3600,
        move_messages_between_streams_limit_seconds=7200,
    )
    user = chat.users[name]
    exempt = name in {"shiva", "iago", "desdemona"}
    inside = await chat.send_stream(chat.cordelia, "Verona", "a", "inside")
    await age(chat, [inside], 3600 + 15)
    await api_ok(chat, "PATCH", f"/messages/{inside}", user, topic="a2")
    outside = await chat.send_stream(chat.cordelia, "Verona", "b", "outside")
    await age(chat, [outside], 3600 + 25)
    resp = await chat.patch(f"/messages/{outside}", user, topic="b2")
    if exempt:
        assert resp.status_code == 200
    else:
        assert_json_error(resp, "The time limit for editing this message's topic has passed.")
    old = await chat.send_stream(chat.cordelia, "Verona", "c", "old")
    await age(chat, [old], 7200 + 25)
    resp = await chat.patch(f"/messages/{old}", user, stream_id=denmark)
    if name == "polonius":
        assert_json_error(resp, "You don't have permission to move this message")
    elif exempt:
        assert resp.status_code == 200
    else:
        assert_json_error(resp, "The time limit for editing this message's stream has passed")


async def test_propagate_modes(chat: ChatHarness, verona: int) -> None:
    ids = [await chat.send_stream(chat.hamlet, "Verona", "t", f"m{i}") for i in range(5)]
    other = await chat.send_stream(chat.hamlet, "Verona", "other", "x")
    await api_ok(
        chat,
        "PATCH",
        f"/messages/{ids[1]}",
        chat.hamlet,
        topic="one",
        send_notification_to_new_thread=False,
    )
    assert await topic_ids(chat, verona, "one") == [ids[1]]
    await api_ok(
        chat,
        "PATCH",
        f"/messages/{ids[2]}",
        chat.hamlet,
        topic="later",
        send_notification_to_new_thread=False,
        propagate_mode="change_later",
    )
    assert await topic_ids(chat, verona, "later") == ids[2:]
    await api_ok(
        chat,
        "PATCH",
        f"/messages/{ids[3]}",
        chat.hamlet,
        subject="ALL",
        send_notification_to_new_thread=False,
        propagate_mode="change_all",
    )
    # The topic is matched case-insensitively.
    assert await topic_ids(chat, verona, "ALL") == ids[2:]
    assert await topic_ids(chat, verona, "other") == [other]
    history = (await message_row(chat, ids[3]))["edit_history"]
    assert '"prev_topic":"later"' in history and '"topic":"ALL"' in history


async def test_move_events_and_breadcrumbs(chat: ChatHarness, verona: int) -> None:
    ids = [await chat.send_stream(chat.hamlet, "Verona", "t", f"m{i}") for i in range(3)]
    updates = await listen(chat, chat.cordelia, ["update_message"])
    messages = await listen(chat, chat.cordelia, ["message"])
    await api_ok(
        chat,
        "PATCH",
        f"/messages/{ids[0]}",
        chat.hamlet,
        topic="renamed",
        propagate_mode="change_all",
        send_notification_to_old_thread=True,
    )
    [event] = await updates.events()
    assert event["message_ids"] == ids
    assert event["orig_subject"] == "t" and event["subject"] == "renamed"
    assert event["propagate_mode"] == "change_all"
    assert event["topic_links"] == []
    assert "new_stream_id" not in event
    posted = [e["message"] for e in await messages.events()]
    texts = {m["subject"]: m["content"] for m in posted}
    assert "This topic was moved here from" in texts["renamed"]
    assert "This topic was moved to" in texts["t"]
    assert all(m["sender_full_name"] == "Notification Bot" for m in posted)
    # The bot is not one of the organization's users.
    users = await api_ok(chat, "GET", "/users", chat.hamlet)
    assert "Notification Bot" not in {u["full_name"] for u in users["members"]}


async def test_partial_move_notifications_count(chat: ChatHarness, verona: int) -> None:
    ids = [await chat.send_stream(chat.hamlet, "Verona", "t", f"m{i}") for i in range(3)]
    messages = await listen(chat, chat.cordelia, ["message"])
    await api_ok(
        chat, "PATCH", f"/messages/{ids[1]}", chat.hamlet, topic="x", propagate_mode="change_later"
    )
    await api_ok(chat, "PATCH", f"/messages/{ids[0]}", chat.hamlet, topic="y")
    contents = [e["message"]["content"] for e in await messages.events()]
    assert "2 messages were moved here from" in contents[0]
    assert "A message was moved here from" in contents[1]
    # send_notification_to_new_thread=false: no notification at all.
    await api_ok(
        chat,
        "PATCH",
        f"/messages/{ids[0]}",
        chat.hamlet,
        topic="z",
        send_notification_to_new_thread=False,
    )
    assert not await messages.events(last_event_id=1)


async def test_resolve_and_unresolve(chat: ChatHarness, verona: int) -> None:
    ids = [await chat.send_stream(chat.hamlet, "Verona", "renamed", f"m{i}") for i in range(2)]
    messages = await listen(chat, chat.cordelia, ["message"])
    await api_ok(
        chat,
        "PATCH",
        f"/messages/{ids[0]}",
        chat.cordelia,
        topic="✔ renamed",
        propagate_mode="change_all",
    )
    [event] = await messages.events()
    assert event["message"]["subject"] == "✔ renamed"
    assert "has marked this topic as resolved." in event["message"]["content"]
    resolved = await api_ok(
        chat,
        "GET",
        "/messages",
        chat.cordelia,
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow=[{"operator": "is", "operand": "resolved"}],
    )
    assert len(resolved["messages"]) == 3
    await api_ok(
        chat,
        "PATCH",
        f"/messages/{ids[0]}",
        chat.cordelia,
        topic="renamed",
        propagate_mode="change_all",
    )
    events = await messages.events()
    assert "has marked this topic as unresolved." in events[-1]["message"]["content"]
    assert len(events) == 2
    # The acting user has read the notification; others have not.
    mine = await api_ok(chat, "GET", f"/messages/{events[-1]['message']['id']}", chat.cordelia)
    assert "read" in mine["message"]["flags"]
    theirs = await api_ok(chat, "GET", f"/messages/{events[-1]['message']['id']}", chat.hamlet)
    assert "read" not in theirs["message"]["flags"]


async def test_change_all_time_limit_error(chat: ChatHarness, verona: int) -> None:
    await set_realm(chat, move_messages_within_stream_limit_seconds=3600)
    ids = [await chat.send_stream(chat.hamlet, "Verona", "t", f"m{i}") for i in range(4)]
    await age(chat, ids[:2], 3600 + 100)
    before = await snapshot(chat)
    resp = await chat.patch(
        f"/messages/{ids[3]}", chat.hamlet, topic="new", propagate_mode="change_all"
    )
    body = assert_json_error(
        resp,
        "You only have permission to move the 2/4 most recent messages in this topic.",
        code="MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
    )
    assert body["first_message_id_allowed_to_move"] == ids[2]
    assert body["total_messages_in_topic"] == 4
    assert body["total_messages_allowed_to_move"] == 2
    assert await snapshot(chat) == before
    # The client retries with change_later from the first movable message.
    await api_ok(
        chat,
        "PATCH",
        f"/messages/{ids[2]}",
        chat.hamlet,
        topic="new",
        propagate_mode="change_later",
    )
    assert (await topic_ids(chat, verona, "new"))[:2] == ids[2:]
    # Moderators are exempt.
    await api_ok(
        chat, "PATCH", f"/messages/{ids[1]}", chat.shiva, topic="all", propagate_mode="change_all"
    )


async def test_change_all_time_limit_none_movable(chat: ChatHarness, verona: int) -> None:
    await set_realm(chat, move_messages_between_streams_limit_seconds=3600)
    denmark = await chat.make_stream("Denmark", [chat.hamlet])
    ids = [await chat.send_stream(chat.hamlet, "Verona", "t", f"m{i}") for i in range(2)]
    await age(chat, ids[:1], 3600 + 100)
    await age(chat, ids[1:], 3600 + 10)  # the target itself is inside the grace period
    resp = await chat.patch(
        f"/messages/{ids[1]}", chat.hamlet, stream_id=denmark, propagate_mode="change_all"
    )
    body = assert_json_error(
        resp,
        "You only have permission to move the 1/2 most recent messages in this topic.",
        code="MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
    )
    assert body["first_message_id_allowed_to_move"] == ids[1]


async def test_protected_history_moves_only_accessible(chat: ChatHarness) -> None:
    secret = await chat.make_stream(
        "secret", [chat.hamlet], invite_only=True, history_public_to_subscribers=False
    )
    early = [await chat.send_stream(chat.hamlet, "secret", "t", f"e{i}") for i in range(2)]
    await chat.subscribe(chat.cordelia, "secret")
    late = [await chat.send_stream(chat.hamlet, "secret", "t", f"l{i}") for i in range(2)]
    await set_realm(chat, move_messages_within_stream_limit_seconds=3600)
    await age(chat, [late[0]], 3600 + 100)
    body = assert_json_error(
        await chat.patch(
            f"/messages/{late[1]}", chat.cordelia, topic="n", propagate_mode="change_all"
        ),
        "You only have permission to move the 1/2 most recent messages in this topic.",
        code="MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
    )
    assert body["total_messages_in_topic"] == 2
    await set_realm(chat, move_messages_within_stream_limit_seconds=None)
    await api_ok(
        chat, "PATCH", f"/messages/{late[1]}", chat.cordelia, topic="n", propagate_mode="change_all"
    )
    assert await topic_ids(chat, secret, "t") == early
    assert (await topic_ids(chat, secret, "n"))[:2] == late


async def test_stream_move_delivery_and_access(chat: ChatHarness, verona: int) -> None:
    private = await chat.make_stream("private", [chat.hamlet, chat.iago], invite_only=True)
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "secret soon")
    deletes = await listen(chat, chat.cordelia, ["delete_message"])
    updates = await listen(chat, chat.iago, ["update_message"])
    await api_ok(chat, "PATCH", f"/messages/{mid}", chat.hamlet, stream_id=private)
    [gone] = await deletes.events()
    assert gone["message_ids"] == [mid] and gone["stream_id"] == verona
    [event] = await updates.events()
    assert event["new_stream_id"] == private and event["stream_id"] == verona
    assert event["orig_subject"] == "t" and "subject" not in event
    assert_json_error(await chat.get(f"/messages/{mid}", chat.cordelia), "Invalid message(s)")
    await api_ok(chat, "GET", f"/messages/{mid}", chat.iago)
    # Moving into a private stream the mover cannot read is refused.
    hidden = await chat.make_stream("hidden", [chat.iago], invite_only=True)
    other = await chat.send_stream(chat.hamlet, "Verona", "t", "x")
    assert_json_error(
        await chat.patch(f"/messages/{other}", chat.hamlet, stream_id=hidden), "Invalid stream ID"
    )


async def test_delete_message(chat: ChatHarness, verona: int) -> None:
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "bye")
    assert_json_error(
        await chat.delete(f"/messages/{mid}", chat.cordelia),
        "You don't have permission to delete this message",
    )
    probe = await listen(chat, chat.cordelia, ["delete_message"])
    await api_ok(chat, "DELETE", f"/messages/{mid}", chat.hamlet)
    [event] = await probe.events()
    assert event["message_ids"] == [mid] and event["message_type"] == "stream"
    assert_json_error(await chat.get(f"/messages/{mid}", chat.hamlet), "Invalid message(s)")
    old = await chat.send_stream(chat.hamlet, "Verona", "t", "old")
    await age(chat, [old], 600 + 25)
    assert_json_error(
        await chat.delete(f"/messages/{old}", chat.hamlet),
        "The time limit for deleting this message has passed",
    )
    await api_ok(chat, "DELETE", f"/messages/{old}", chat.iago)
