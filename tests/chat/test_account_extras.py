"""Smaller endpoints: subgroups and membership checks, a user's subscription status, PATCH
/users/me/subscriptions, DELETE /users/me, hotspots and push-token registration."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error, assert_json_success, listen

pytestmark = pytest.mark.anyio


async def group(chat: ChatHarness, name: str, members: list[int]) -> int:
    await api_ok(
        chat, "POST", "/user_groups/create", chat.iago, name=name, members=members, description="d"
    )
    groups = (await api_ok(chat, "GET", "/user_groups", chat.iago))["user_groups"]
    return int(next(g["id"] for g in groups if g["name"] == name))


async def test_subgroups_and_membership(chat: ChatHarness) -> None:
    outer = await group(chat, "outer", [chat.iago.id])
    inner = await group(chat, "inner", [chat.hamlet.id])
    probe = await listen(chat, chat.cordelia, ["user_group"])
    await api_ok(chat, "POST", f"/user_groups/{outer}/subgroups", chat.iago, add=[inner])
    [event] = await probe.events()
    assert event == {
        "type": "user_group",
        "op": "add_subgroups",
        "group_id": outer,
        "direct_subgroup_ids": [inner],
        "id": event["id"],
    }
    body = await api_ok(chat, "GET", f"/user_groups/{outer}/subgroups", chat.cordelia)
    assert body["subgroups"] == [inner]
    path = f"/user_groups/{outer}/members/{chat.hamlet.id}"
    assert (await api_ok(chat, "GET", path, chat.cordelia))["is_user_group_member"] is True
    body = await api_ok(chat, "GET", path, chat.cordelia, direct_member_only=True)
    assert body["is_user_group_member"] is False
    resp = await chat.get(f"/user_groups/{outer}/members/424242", chat.cordelia)
    assert_json_error(resp, "No such user")
    resp = await chat.get("/user_groups/9999/subgroups", chat.cordelia)
    assert_json_error(resp, "Invalid user group")

    resp = await chat.post(f"/user_groups/{outer}/subgroups", chat.iago, add=[inner])
    assert_json_error(resp, f"User group {inner} is already a subgroup of this group.")
    resp = await chat.post(f"/user_groups/{inner}/subgroups", chat.iago, add=[outer])
    assert_json_error(
        resp, f"User group {inner} is already a subgroup of one of the passed subgroups."
    )
    resp = await chat.post(f"/user_groups/{outer}/subgroups", chat.iago, add=[9999])
    assert_json_error(resp, "Invalid user group ID: 9999")
    resp = await chat.post(f"/user_groups/{outer}/subgroups", chat.iago)
    assert_json_error(resp, 'Nothing to do. Specify at least one of "add" or "delete".')
    resp = await chat.post(f"/user_groups/{outer}/subgroups", chat.polonius, add=[inner])
    assert_json_error(resp, "Not allowed for guest users")
    await api_ok(chat, "POST", f"/user_groups/{outer}/subgroups", chat.iago, delete=[inner])
    resp = await chat.post(f"/user_groups/{outer}/subgroups", chat.iago, delete=[inner])
    assert_json_error(resp, f"User group {inner} is not a subgroup of this group.")


async def test_subscription_status(chat: ChatHarness) -> None:
    public = await chat.make_stream("public", [chat.hamlet])
    private = await chat.make_stream("private", [chat.hamlet], invite_only=True)
    path = f"/users/{chat.hamlet.id}/subscriptions/{public}"
    assert (await api_ok(chat, "GET", path, chat.cordelia))["is_subscribed"] is True
    path = f"/users/{chat.cordelia.id}/subscriptions/{public}"
    assert (await api_ok(chat, "GET", path, chat.hamlet))["is_subscribed"] is False
    # A private stream's membership is not told to those who cannot see the stream.
    resp = await chat.get(f"/users/{chat.hamlet.id}/subscriptions/{private}", chat.cordelia)
    assert_json_error(resp, "Invalid stream ID")
    body = await api_ok(chat, "GET", f"/users/{chat.hamlet.id}/subscriptions/{private}", chat.iago)
    assert body["is_subscribed"] is True
    resp = await chat.get(f"/users/424242/subscriptions/{public}", chat.hamlet)
    assert_json_error(resp, "No such user")


async def test_patch_subscriptions_adds_and_removes(chat: ChatHarness) -> None:
    await chat.make_stream("old", [chat.hamlet])
    body = await api_ok(
        chat,
        "PATCH",
        "/users/me/subscriptions",
        chat.hamlet,
        add=[{"name": "brand new"}],
        delete=["old"],
    )
    assert body["subscribed"] == {chat.hamlet.email: ["brand new"]}
    assert body["removed"] == ["old"] and body["not_removed"] == []
    subs = (await api_ok(chat, "GET", "/users/me/subscriptions", chat.hamlet))["subscriptions"]
    assert [s["name"] for s in subs] == ["brand new"]
    resp = await chat.patch("/users/me/subscriptions", chat.hamlet)
    assert_json_error(resp, 'Nothing to do. Specify at least one of "add" or "delete".')
    # One transaction: a failing half leaves the other undone.
    resp = await chat.patch(
        "/users/me/subscriptions", chat.hamlet, add=[{"name": "x" * 70}], delete=["brand new"]
    )
    assert resp.status_code == 400
    subs = (await api_ok(chat, "GET", "/users/me/subscriptions", chat.hamlet))["subscriptions"]
    assert [s["name"] for s in subs] == ["brand new"]


async def test_deactivate_own_account(chat: ChatHarness) -> None:
    bot = await chat.make_user("helper-bot", bot_owner=chat.hamlet)
    probe = await listen(chat, chat.iago, ["realm_user"])
    await api_ok(chat, "DELETE", "/users/me", chat.hamlet)
    removed = {e["person"]["user_id"] for e in await probe.events() if e["op"] == "remove"}
    assert removed == {chat.hamlet.id, bot.id}
    assert (await chat.get("/users/me", chat.hamlet)).status_code == 401
    resp = await chat.delete("/users/me", chat.desdemona)
    body = assert_json_error(
        resp, "Cannot deactivate the only organization owner", code="CANNOT_DEACTIVATE_LAST_USER"
    )
    assert body["is_last_owner"] is True


async def test_hotspots(chat: ChatHarness) -> None:
    # Not checked against the FL 247 description, where onboarding_steps replaced hotspots.
    resp = await chat.post("/register", chat.hamlet, fetch_event_types=["hotspots"])
    state = assert_json_success(resp)
    assert [h["name"] for h in state["hotspots"]] == ["intro_streams"]
    probe = await listen(chat, chat.hamlet, ["hotspots"])
    resp = await chat.post("/users/me/hotspots", chat.hamlet, hotspot="intro_streams")
    assert_json_success(resp)
    [event] = await probe.events()
    assert [h["name"] for h in event["hotspots"]] == ["intro_topics"]
    resp = await chat.post("/users/me/hotspots", chat.hamlet, hotspot="nope")
    assert_json_error(resp, "Unknown hotspot: nope")


async def test_push_tokens_are_stored(chat: ChatHarness) -> None:
    assert_json_success(await chat.post("/users/me/apns_device_token", chat.hamlet, token="abcd12"))
    assert_json_success(await chat.post("/users/me/android_gcm_reg_id", chat.hamlet, token="gcm-1"))
    rows = await chat.runtime.db.read(
        lambda conn: conn.all(sa.select(schema.push_device_token).order_by("id"))
    )
    assert [(r["kind"], r["token"], r["ios_app_id"]) for r in rows] == [
        (1, "abcd12", "org.zulip.Zulip"),
        (2, "gcm-1", None),
    ]
    resp = await chat.post("/users/me/apns_device_token", chat.hamlet, token="not hex")
    assert_json_error(resp, "Invalid APNS token")
    resp = await chat.post("/users/me/android_gcm_reg_id", chat.hamlet, token="")
    assert_json_error(resp, "Empty or invalid length token")
    resp = await chat.post(
        "/users/me/apns_device_token", chat.hamlet, token="abcd", appid="bad app!"
    )
    assert_json_error(resp, "Invalid app ID")
    resp = await chat.delete("/users/me/android_gcm_reg_id", chat.cordelia, token="gcm-1")
    assert_json_error(resp, "Token does not exist")
    assert_json_success(
        await chat.delete("/users/me/android_gcm_reg_id", chat.hamlet, token="gcm-1")
    )
    assert_json_success(
        await chat.delete("/users/me/apns_device_token", chat.hamlet, token="abcd12")
    )
    assert await chat.count(schema.push_device_token) == 0
