"""DELETE /users/{id}, POST /users/{id}/reactivate, PATCH /users/{id}, PATCH /settings."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import ROLE_ADMINISTRATOR, ROLE_GUEST, ROLE_MEMBER, ROLE_OWNER
from tests.chat.conftest import (
    ChatHarness,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio


async def user_row(chat: ChatHarness, user_id: int) -> dict[str, Any]:
    row = await chat.runtime.db.read(
        lambda conn: conn.one(sa.select(schema.user).where(schema.user.c.id == user_id))
    )
    return {
        key: bool(value) if isinstance(schema.user.c[key].type, sa.Boolean) else value
        for key, value in row.items()
    }


async def test_deactivate(chat: ChatHarness) -> None:
    bot = await chat.make_user("bot", ROLE_MEMBER, "Bot", bot_owner=chat.hamlet)
    cordelia_q = await listen(chat, chat.cordelia, ["realm_user", "realm_bot"])
    iago_q = await listen(chat, chat.iago, ["realm_bot"])
    await api_ok(chat, "DELETE", f"/users/{chat.hamlet.id}", chat.iago)
    assert (await user_row(chat, chat.hamlet.id))["is_active"] is False
    assert (await user_row(chat, bot.id))["is_active"] is False
    # Neither can authenticate any more.
    for user in (chat.hamlet, bot):
        resp = await chat.get("/users/me", user)
        assert_json_error(resp, "Account is deactivated", 401, "UNAUTHORIZED")
    events = await cordelia_q.events()
    assert [(e["type"], e["op"], e["person"]["user_id"]) for e in events] == [
        ("realm_user", "remove", chat.hamlet.id),
        ("realm_user", "remove", bot.id),
    ]
    [bot_event] = await iago_q.events()
    assert bot_event["op"] == "remove" and bot_event["bot"]["user_id"] == bot.id
    # No notice was asked for.
    assert await chat.count(schema.outgoing_email) == 0
    users = assert_json_success(await chat.get("/users", chat.iago))["members"]
    assert {u["user_id"]: u["is_active"] for u in users}[chat.hamlet.id] is False


async def test_deactivation_comment_is_mailed(chat: ChatHarness) -> None:
    await api_ok(
        chat,
        "DELETE",
        f"/users/{chat.cordelia.id}",
        chat.iago,
        deactivation_notification_comment="Thanks for everything.",
    )
    mail = await chat.runtime.db.read(lambda conn: conn.one(sa.select(schema.outgoing_email)))
    assert mail["to_address"] == chat.cordelia.email
    assert mail["template"] == "deactivate"
    assert "Thanks for everything." in mail["body"]
    assert "deactivated" in mail["subject"]
    # An empty comment still sends the notice, without a comment.
    await api_ok(
        chat, "DELETE", f"/users/{chat.hamlet.id}", chat.iago, deactivation_notification_comment=""
    )
    assert await chat.count(schema.outgoing_email) == 2
    resp = await chat.delete(
        f"/users/{chat.shiva.id}", chat.iago, deactivation_notification_comment="x" * 2001
    )
    assert_json_error(
        resp, "deactivation_notification_comment is too long (limit: 2000 characters)"
    )
    assert (await user_row(chat, chat.shiva.id))["is_active"] is True


async def test_deactivate_errors(chat: ChatHarness) -> None:
    bot = await chat.make_user("bot", ROLE_MEMBER, "Bot", bot_owner=chat.hamlet)
    assert_json_error(await chat.delete("/users/999999", chat.desdemona), "No such user")
    assert_json_error(await chat.delete(f"/users/{bot.id}", chat.desdemona), "No such user")
    resp = await chat.delete(f"/users/{chat.desdemona.id}", chat.desdemona)
    assert_json_error(resp, "Cannot deactivate the only organization owner", code=None)
    resp = await chat.delete(f"/users/{chat.desdemona.id}", chat.iago)
    assert_json_error(resp, "Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")
    await api_ok(chat, "DELETE", f"/users/{chat.cordelia.id}", chat.iago)
    resp = await chat.delete(f"/users/{chat.cordelia.id}", chat.iago)
    assert_json_error(resp, "User is deactivated")
    # With a second owner, one of them may go.
    second = await chat.make_user("othello", ROLE_OWNER)
    await api_ok(chat, "DELETE", f"/users/{second.id}", chat.desdemona)


@pytest.mark.parametrize("who", ["polonius", "hamlet", "shiva", "iago", "desdemona", "bot_owner"])
async def test_deactivate_permission_matrix(chat: ChatHarness, who: str) -> None:
    actor = chat.hamlet if who == "bot_owner" else chat.users[who]
    target = chat.cordelia
    if who == "bot_owner":
        # Owning a bot gives no power over people; bots are not deactivated here at all.
        bot = await chat.make_user("bot", ROLE_MEMBER, "Bot", bot_owner=chat.hamlet)
        resp = await chat.delete(f"/users/{bot.id}", actor)
        assert_json_error(resp, "No such user")
        assert (await user_row(chat, bot.id))["is_active"] is True
    resp = await chat.delete(f"/users/{target.id}", actor)
    if who in {"iago", "desdemona"}:
        assert_json_success(resp)
        assert (await user_row(chat, target.id))["is_active"] is False
    else:
        assert_json_error(resp, "Insufficient permission")
        assert (await user_row(chat, target.id))["is_active"] is True


async def test_reactivate(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    await api_ok(chat, "DELETE", f"/users/{chat.hamlet.id}", chat.iago)
    # Zulip's access_user_by_id(for_admin=True): "Insufficient permission", not a role error.
    resp = await chat.post(f"/users/{chat.hamlet.id}/reactivate", chat.shiva)
    assert_json_error(resp, "Insufficient permission")
    assert_json_error(await chat.post("/users/999999/reactivate", chat.shiva), "No such user")
    cordelia_q = await listen(chat, chat.cordelia, ["realm_user", "subscription"])
    await api_ok(chat, "POST", f"/users/{chat.hamlet.id}/reactivate", chat.iago)
    assert (await user_row(chat, chat.hamlet.id))["is_active"] is True
    assert_json_success(await chat.get("/users/me", chat.hamlet))
    events = await cordelia_q.events()
    assert events[0]["op"] == "add" and events[0]["person"]["user_id"] == chat.hamlet.id
    assert events[1] == {
        "type": "subscription",
        "op": "peer_add",
        "stream_ids": [sid],
        "user_ids": [chat.hamlet.id],
        "id": events[1]["id"],
    }
    # Zulip 7 answers an active user's reactivation with success, and says nothing.
    again_q = await listen(chat, chat.cordelia, ["realm_user"])
    await api_ok(chat, "POST", f"/users/{chat.hamlet.id}/reactivate", chat.iago)
    assert await again_q.events() == []
    assert_json_error(await chat.post("/users/999999/reactivate", chat.iago), "No such user")


async def test_update_user(chat: ChatHarness) -> None:
    q = await listen(chat, chat.cordelia, ["realm_user", "user_group"])
    await api_ok(
        chat,
        "PATCH",
        f"/users/{chat.hamlet.id}",
        chat.iago,
        full_name="Prince Hamlet",
        role=ROLE_ADMINISTRATOR,
    )
    row = await user_row(chat, chat.hamlet.id)
    assert row["full_name"] == "Prince Hamlet" and row["role"] == ROLE_ADMINISTRATOR
    events = await q.events()
    assert events[0]["person"] == {"user_id": chat.hamlet.id, "role": ROLE_ADMINISTRATOR}
    assert [e["op"] for e in events[1:3]] == ["remove_members", "add_members"]
    assert events[3]["person"] == {"user_id": chat.hamlet.id, "full_name": "Prince Hamlet"}
    # Now an administrator, Hamlet may do administrators' things.
    sid = await chat.make_stream("Verona", [chat.cordelia])
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.hamlet, description="his now")
    groups = assert_json_success(await chat.get("/user_groups", chat.hamlet))["user_groups"]
    by_name = {g["name"]: g for g in groups}
    assert chat.hamlet.id in by_name["@role:administrators"]["members"]
    assert chat.hamlet.id not in by_name["@role:fullmembers"]["members"]


async def test_update_user_errors(chat: ChatHarness) -> None:
    uid = chat.hamlet.id
    resp = await chat.patch(f"/users/{uid}", chat.shiva, full_name="Nope")
    assert_json_error(resp, "Insufficient permission")
    # The role is validated before the permission, as Zulip's REQ does.
    resp = await chat.patch(f"/users/{uid}", chat.shiva, role=700)
    assert_json_error(resp, "Invalid role")
    resp = await chat.patch(f"/users/{uid}", chat.iago, role=ROLE_OWNER)
    assert_json_error(resp, "Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")
    resp = await chat.patch(f"/users/{chat.desdemona.id}", chat.iago, role=ROLE_MEMBER)
    assert_json_error(resp, "Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")
    resp = await chat.patch(f"/users/{chat.desdemona.id}", chat.desdemona, role=ROLE_MEMBER)
    assert_json_error(
        resp, "The owner permission cannot be removed from the only organization owner."
    )
    resp = await chat.patch(f"/users/{uid}", chat.iago, role=700)
    assert_json_error(resp, "Invalid role")
    resp = await chat.patch(f"/users/{uid}", chat.iago, full_name="x")
    assert_json_error(resp, "Name too short!")
    assert_json_error(await chat.patch("/users/999999", chat.iago, role=ROLE_GUEST), "No such user")
    row = await user_row(chat, uid)
    assert row["full_name"] == "King Hamlet" and row["role"] == ROLE_MEMBER
    # An owner may make another owner.
    await api_ok(chat, "PATCH", f"/users/{uid}", chat.desdemona, role=ROLE_OWNER)
    assert (await user_row(chat, uid))["role"] == ROLE_OWNER


async def test_settings(chat: ChatHarness) -> None:
    me_q = await listen(chat, chat.hamlet, ["user_settings", "realm_user"])
    other_q = await listen(chat, chat.cordelia, ["user_settings", "realm_user"])
    await api_ok(
        chat,
        "PATCH",
        "/settings",
        chat.hamlet,
        full_name="Hamlet, Prince of Denmark",
        timezone="Europe/Copenhagen",
        translate_emoticons=True,
        enable_drafts_synchronization=False,
        default_language="de",
    )
    row = await user_row(chat, chat.hamlet.id)
    assert row["full_name"] == "Hamlet, Prince of Denmark"
    assert row["timezone"] == "Europe/Copenhagen"
    assert row["translate_emoticons"] is True
    assert row["enable_drafts_synchronization"] is False
    assert row["default_language"] == "de"
    mine = await me_q.events()
    settings_events = [e for e in mine if e["type"] == "user_settings"]
    assert [(e["property"], e["value"]) for e in settings_events] == [
        ("timezone", "Europe/Copenhagen"),
        ("translate_emoticons", True),
        ("enable_drafts_synchronization", False),
        ("default_language", "de"),
    ]
    assert settings_events[-1]["language_name"] == "Deutsch"
    theirs = await other_q.events()
    assert all(e["type"] == "realm_user" for e in theirs)
    assert [e["person"] for e in theirs] == [
        {"user_id": chat.hamlet.id, "full_name": "Hamlet, Prince of Denmark"},
        {"user_id": chat.hamlet.id, "timezone": "Europe/Copenhagen"},
    ]
    me = assert_json_success(await chat.get("/users/me", chat.hamlet))
    assert me["timezone"] == "Europe/Copenhagen"


async def test_translate_emoticons_changes_rendering(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "hi :)")
    await api_ok(chat, "PATCH", "/settings", chat.hamlet, translate_emoticons=True)
    mid2 = await chat.send_stream(chat.hamlet, "Verona", "t", "hi :)")
    body = assert_json_success(await chat.get(f"/messages/{mid}", chat.hamlet))
    body2 = assert_json_success(await chat.get(f"/messages/{mid2}", chat.hamlet))
    assert "emoji" not in body["message"]["content"]
    assert "emoji" in body2["message"]["content"]


async def test_settings_errors(chat: ChatHarness) -> None:
    resp = await chat.patch("/settings", chat.hamlet, timezone="Mars/Olympus")
    assert_json_error(resp, "timezone is not a recognized time zone")
    resp = await chat.patch("/settings", chat.hamlet, default_language="xx")
    assert_json_error(resp, "Invalid default_language")
    resp = await chat.patch("/settings", chat.hamlet, translate_emoticons="maybe")
    assert_json_error(resp, "translate_emoticons is not valid JSON")
    resp = await chat.patch("/settings", chat.hamlet, full_name="Fine Name", default_language="xx")
    assert_json_error(resp, "Invalid default_language")
    assert (await user_row(chat, chat.hamlet.id))["full_name"] == "King Hamlet"
