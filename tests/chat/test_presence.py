"""Presence: heartbeats, GET /users/{user}/presence, GET /realm/presence, events, privacy."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error, assert_json_success, listen

pytestmark = pytest.mark.anyio


async def age_presence(chat: ChatHarness, user_id: int, seconds: float) -> None:
    """Move a user's stored presence into the past, as if time had passed."""
    P = schema.user_presence.c
    await chat.runtime.db.write(
        lambda conn: conn.execute(
            sa.update(schema.user_presence)
            .where(P.user_id == user_id)
            .values(
                last_connected_time=P.last_connected_time - seconds,
                last_active_time=P.last_active_time - seconds,
            )
        )
    )


async def test_heartbeat_then_queries(chat: ChatHarness) -> None:
    q = await listen(chat, chat.cordelia, ["presence"])
    body = assert_json_success(
        await chat.post("/users/me/presence", chat.hamlet, status="active", new_user_input=True)
    )
    entry = body["presences"][chat.hamlet.email]
    assert entry["aggregated"]["status"] == "active" and entry["website"]["client"] == "website"
    assert abs(body["server_timestamp"] - time.time()) < 5
    slim = assert_json_success(
        await chat.post("/users/me/presence", chat.hamlet, status="idle", slim_presence=True)
    )
    assert str(chat.hamlet.id) in slim["presences"]
    assert assert_json_success(
        await chat.post("/users/me/presence", chat.hamlet, status="active", ping_only=True)
    ) == {"result": "success", "msg": ""}
    [event] = await q.events()  # coming online is announced once; the rest changed nothing
    assert event["type"] == "presence" and event["user_id"] == chat.hamlet.id
    assert event["email"] == chat.hamlet.email
    assert event["presence"]["website"]["status"] == "active"
    one = await api_ok(chat, "GET", f"/users/{chat.hamlet.id}/presence", chat.cordelia)
    assert one["presence"]["aggregated"]["status"] == "active"
    by_email = await api_ok(chat, "GET", f"/users/{chat.hamlet.email}/presence", chat.cordelia)
    assert by_email["presence"] == one["presence"]
    realm = await api_ok(chat, "GET", "/realm/presence", chat.cordelia)
    assert list(realm["presences"]) == [chat.hamlet.email]


async def test_idle_and_offline_then_back(chat: ChatHarness) -> None:
    await chat.post("/users/me/presence", chat.hamlet, status="active")
    await age_presence(chat, chat.hamlet.id, 600)
    realm = await api_ok(chat, "GET", "/realm/presence", chat.cordelia)
    assert realm["presences"][chat.hamlet.email]["aggregated"]["timestamp"] < time.time() - 500
    q = await listen(chat, chat.cordelia, ["presence"])
    await chat.post("/users/me/presence", chat.hamlet, status="idle")
    [event] = await q.events()  # back online after being offline
    assert event["presence"]["website"]["status"] == "idle"
    await chat.post("/users/me/presence", chat.hamlet, status="active")
    assert (await api_ok(chat, "GET", "/realm/presence", chat.cordelia))["presences"][
        chat.hamlet.email
    ]["aggregated"]["status"] == "active"


async def test_presence_disabled_user_is_invisible(chat: ChatHarness) -> None:
    await api_ok(chat, "PATCH", "/settings", chat.hamlet, presence_enabled=False)
    q = await listen(chat, chat.cordelia, ["presence"])
    await chat.post("/users/me/presence", chat.hamlet, status="active")
    assert await q.events() == []
    assert_json_error(
        await chat.get(f"/users/{chat.hamlet.id}/presence", chat.cordelia),
        f"No presence data for {chat.hamlet.id}",
    )
    assert (await api_ok(chat, "GET", "/realm/presence", chat.cordelia))["presences"] == {}


async def test_presence_errors(chat: ChatHarness) -> None:
    assert_json_error(
        await chat.post("/users/me/presence", chat.hamlet, status="away"), "Invalid status: away"
    )
    assert_json_error(
        await chat.post("/users/me/presence", chat.hamlet),
        "Missing 'status' argument",
        code="REQUEST_VARIABLE_MISSING",
    )
    assert_json_error(await chat.get("/users/999999/presence", chat.hamlet), "No such user")
    bot = await chat.make_user("bot", bot_owner=chat.hamlet)
    assert_json_error(
        await chat.get(f"/users/{bot.id}/presence", chat.hamlet),
        "Presence is not supported for bot users.",
    )
    assert (await chat.get("/realm/presence", None)).status_code == 401
