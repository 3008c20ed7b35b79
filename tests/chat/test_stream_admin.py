"""PATCH, GET and DELETE /streams/{id}, GET /streams/{id}/members, GET /get_stream_id."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import ROLE_MEMBER
from tests.chat.conftest import (
    ChatHarness,
    Member,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio


async def stream_row(chat: ChatHarness, stream_id: int) -> dict[str, Any]:
    row = await chat.runtime.db.read(
        lambda conn: conn.one(sa.select(schema.stream).where(schema.stream.c.id == stream_id))
    )
    return {
        key: bool(value) if isinstance(schema.stream.c[key].type, sa.Boolean) else value
        for key, value in row.items()
    }


async def group_id(chat: ChatHarness, name: str) -> int:
    return int(
        await chat.runtime.db.read(
            lambda conn: conn.scalar(
                sa.select(schema.user_group.c.id).where(schema.user_group.c.name == name)
            )
        )
    )


async def test_update_description_renders_and_announces(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet])
    hamlet_q = await listen(chat, chat.hamlet, ["stream"])
    polonius_q = await listen(chat, chat.polonius, ["stream"])
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, description="New *description*\nx")
    row = await stream_row(chat, sid)
    assert row["description"] == "New *description* x"
    assert "<em>description</em>" in row["rendered_description"]
    [event] = await hamlet_q.events()
    assert event["op"] == "update" and event["property"] == "description"
    assert event["value"] == "New *description* x"
    assert event["rendered_description"] == row["rendered_description"]
    assert event["stream_id"] == sid and event["name"] == "Verona"
    # A guest who is not subscribed cannot see a public stream: no event.
    assert await polonius_q.events() == []


async def test_update_errors(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet])
    await chat.make_stream("Denmark", [chat.hamlet])
    before = await stream_row(chat, sid)
    resp = await chat.patch("/streams/999999", chat.desdemona, description="x")
    assert_json_error(resp, "Invalid stream ID")
    resp = await chat.patch(f"/streams/{sid}", chat.hamlet, description="x")
    assert_json_error(resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")
    resp = await chat.patch(
        f"/streams/{sid}", chat.desdemona, is_private=False, history_public_to_subscribers=False
    )
    assert_json_error(resp, "Invalid parameters")
    resp = await chat.patch(f"/streams/{sid}", chat.iago, description="x" * 1025)
    assert_json_error(resp, "description is too long (limit: 1024 characters)")
    resp = await chat.patch(f"/streams/{sid}", chat.iago, new_name="Verona")
    assert_json_error(resp, "Stream already has that name!")
    resp = await chat.patch(f"/streams/{sid}", chat.iago, new_name="denmark")
    assert_json_error(resp, "Stream name 'denmark' is already taken.")
    resp = await chat.patch(f"/streams/{sid}", chat.iago, new_name="x" * 61)
    assert_json_error(resp, "Stream name too long (limit: 60 characters).")
    resp = await chat.patch(f"/streams/{sid}", chat.iago, new_name="  ")
    assert_json_error(resp, "Stream name can't be empty!")
    resp = await chat.patch(f"/streams/{sid}", chat.iago, stream_post_policy=5)
    assert_json_error(resp, "Invalid stream_post_policy")
    resp = await chat.patch(f"/streams/{sid}", chat.iago, message_retention_days=30)
    assert_json_error(resp, "Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")
    resp = await chat.patch(f"/streams/{sid}", chat.desdemona, message_retention_days="forever")
    assert_json_error(
        resp, "Bad value for 'message_retention_days': forever", code="REQUEST_VARIABLE_INVALID"
    )
    resp = await chat.patch(f"/streams/{sid}", chat.desdemona, message_retention_days=0)
    assert_json_error(
        resp, "Bad value for 'message_retention_days': 0", code="REQUEST_VARIABLE_INVALID"
    )
    resp = await chat.patch(f"/streams/{sid}", chat.iago, is_web_public=True)
    assert_json_error(resp, "Web-public streams are not enabled.")
    resp = await chat.patch(f"/streams/{sid}", chat.iago, is_private=True, is_web_public=True)
    assert_json_error(resp, "Invalid parameters")
    # Refused requests wrote nothing, even where another parameter was valid.
    resp = await chat.patch(f"/streams/{sid}", chat.iago, description="ok", new_name="Verona")
    assert_json_error(resp, "Stream already has that name!")
    assert await stream_row(chat, sid) == before


async def test_rename_and_post_policy_events(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet])
    q = await listen(chat, chat.cordelia, ["stream"])
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, new_name="Vienna")
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, is_announcement_only=True)
    row = await stream_row(chat, sid)
    assert row["name"] == "Vienna" and row["stream_post_policy"] == 2
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, stream_post_policy=4)
    events = await q.events()
    assert [(e["property"], e["value"]) for e in events] == [
        ("name", "Vienna"),
        ("stream_post_policy", 2),
        ("is_announcement_only", True),
        ("stream_post_policy", 4),
        ("is_announcement_only", False),
    ]
    assert events[0]["name"] == "Verona"  # the event names the stream by its old name


async def test_retention_values(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet])
    for given, stored in ((30, 30), ("unlimited", -1), ("realm_default", None)):
        await api_ok(chat, "PATCH", f"/streams/{sid}", chat.desdemona, message_retention_days=given)
        assert (await stream_row(chat, sid))["message_retention_days"] == stored


async def test_privacy_changes(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet, chat.iago])
    cordelia_q = await listen(chat, chat.cordelia, ["stream"])
    hamlet_q = await listen(chat, chat.hamlet, ["stream"])
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, is_private=True)
    row = await stream_row(chat, sid)
    assert row["invite_only"] is True and row["history_public_to_subscribers"] is False
    [update] = await hamlet_q.events()
    assert update["property"] == "invite_only" and update["value"] is True
    assert update["history_public_to_subscribers"] is False and update["is_web_public"] is False
    # Cordelia lost sight of it.
    [gone] = await cordelia_q.events()
    assert gone["op"] == "delete" and gone["streams"][0]["stream_id"] == sid
    # Back to public: Cordelia hears of it again.
    cordelia_q = await listen(chat, chat.cordelia, ["stream"])
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, is_private=False)
    assert (await stream_row(chat, sid))["history_public_to_subscribers"] is True
    ops = [e["op"] for e in await cordelia_q.events()]
    assert ops == ["create", "update"]
    # Private with public history is allowed.
    await api_ok(
        chat,
        "PATCH",
        f"/streams/{sid}",
        chat.iago,
        is_private=True,
        history_public_to_subscribers=True,
    )
    row = await stream_row(chat, sid)
    assert row["invite_only"] is True and row["history_public_to_subscribers"] is True


async def test_admin_must_be_subscribed_to_change_private_stream_privacy(
    chat: ChatHarness,
) -> None:
    sid = await chat.make_stream("secret", [chat.hamlet], invite_only=True)
    # An administrator may rename it or describe it without being subscribed ...
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, description="hush")
    # ... but not make it public, nor change who may remove subscribers.
    resp = await chat.patch(f"/streams/{sid}", chat.iago, is_private=False)
    assert_json_error(resp, "Invalid stream ID")
    members = await group_id(chat, "@role:members")
    resp = await chat.patch(f"/streams/{sid}", chat.iago, can_remove_subscribers_group_id=members)
    assert_json_error(resp, "Invalid stream ID")
    # A member not subscribed to it does not learn that it exists.
    resp = await chat.patch(f"/streams/{sid}", chat.cordelia, description="x")
    assert_json_error(resp, "Invalid stream ID")
    assert (await stream_row(chat, sid))["invite_only"] is True


async def test_web_public(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet, chat.desdemona])
    assert_json_success(await chat.patch("/realm", chat.desdemona, enable_spectator_access=True))
    # create_web_public_stream_policy defaults to owners.
    resp = await chat.patch(f"/streams/{sid}", chat.iago, is_web_public=True)
    assert_json_error(resp, "Insufficient permission")
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.desdemona, is_web_public=True)
    assert (await stream_row(chat, sid))["is_web_public"] is True
    resp = await chat.patch(f"/streams/{sid}", chat.desdemona, history_public_to_subscribers=False)
    assert_json_error(resp, "Invalid parameters")
    # A guest can see a web-public stream.
    body = await api_ok(chat, "GET", f"/streams/{sid}", chat.polonius)
    assert body["stream"]["is_web_public"] is True


async def test_web_public_needs_the_server_setting(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet])
    assert_json_success(await chat.patch("/realm", chat.desdemona, enable_spectator_access=True))
    chat.runtime.settings = chat.runtime.settings.with_(web_public_streams_enabled=False)
    resp = await chat.patch(f"/streams/{sid}", chat.desdemona, is_web_public=True)
    assert_json_error(resp, "Web-public streams are not enabled.")


async def test_can_remove_subscribers_group(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet])
    moderators = await group_id(chat, "@role:moderators")
    q = await listen(chat, chat.hamlet, ["stream"])
    await api_ok(
        chat, "PATCH", f"/streams/{sid}", chat.iago, can_remove_subscribers_group_id=moderators
    )
    assert (await stream_row(chat, sid))["can_remove_subscribers_group_id"] == moderators
    [event] = await q.events()
    assert event["property"] == "can_remove_subscribers_group_id"
    assert event["value"] == moderators
    for name in ("@role:internet", "@role:owners"):
        resp = await chat.patch(
            f"/streams/{sid}",
            chat.iago,
            can_remove_subscribers_group_id=await group_id(chat, name),
        )
        assert_json_error(
            resp, f"'can_remove_subscribers_group' setting cannot be set to '{name}' group."
        )
    body = assert_json_success(
        await chat.post("/user_groups/create", chat.hamlet, name="team", description="", members=[])
    )
    assert body["result"] == "success"
    resp = await chat.patch(
        f"/streams/{sid}", chat.iago, can_remove_subscribers_group_id=await group_id(chat, "team")
    )
    assert_json_error(resp, "'can_remove_subscribers_group' must be a system user group.")
    resp = await chat.patch(f"/streams/{sid}", chat.iago, can_remove_subscribers_group_id=99999)
    assert_json_error(resp, "Invalid user group")
    assert (await stream_row(chat, sid))["can_remove_subscribers_group_id"] == moderators


ROLE_CELLS = ("polonius", "hamlet", "shiva", "iago", "desdemona", "bot")


async def make_bot(chat: ChatHarness, owner: Member) -> Member:
    return await chat.make_user("bot", ROLE_MEMBER, "Bot", bot_owner=owner)


@pytest.mark.parametrize("who", ROLE_CELLS)
async def test_update_permission_matrix(chat: ChatHarness, who: str) -> None:
    if who == "bot":
        await make_bot(chat, chat.hamlet)
    actor = chat.users[who]
    sid = await chat.make_stream("Verona", [chat.hamlet, actor])
    resp = await chat.patch(f"/streams/{sid}", actor, description="changed")
    if who in {"iago", "desdemona"}:
        assert_json_success(resp)
        assert (await stream_row(chat, sid))["description"] == "changed"
    else:
        assert_json_error(
            resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL"
        )
        assert (await stream_row(chat, sid))["description"] == ""
    resp = await chat.delete(f"/streams/{sid}", actor)
    if who in {"iago", "desdemona"}:
        assert_json_success(resp)
    else:
        assert_json_error(
            resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL"
        )
        assert (await stream_row(chat, sid))["deactivated"] is False


async def test_archive(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet])
    await api_ok(chat, "POST", "/default_streams", chat.iago, stream_id=sid)
    hamlet_q = await listen(chat, chat.hamlet, ["stream", "default_streams"])
    polonius_q = await listen(chat, chat.polonius, ["stream", "default_streams"])
    await api_ok(chat, "DELETE", f"/streams/{sid}", chat.iago)
    row = await stream_row(chat, sid)
    assert row["deactivated"] is True and row["name"] == "!DEACTIVATED:Verona"
    events = await hamlet_q.events()
    assert [e["type"] for e in events] == ["default_streams", "stream"]
    assert events[0]["default_streams"] == []
    assert events[1]["op"] == "delete" and events[1]["streams"][0]["name"] == "Verona"
    assert await polonius_q.events() == []
    subs = assert_json_success(await chat.get("/users/me/subscriptions", chat.hamlet))
    assert subs["subscriptions"] == []
    assert_json_error(await chat.get(f"/streams/{sid}", chat.hamlet), "Invalid stream ID")
    assert_json_error(await chat.delete(f"/streams/{sid}", chat.iago), "Invalid stream ID")
    # The name is free again; archiving the new one adds a "!".
    sid2 = await chat.make_stream("Verona", [chat.hamlet])
    await api_ok(chat, "DELETE", f"/streams/{sid2}", chat.iago)
    assert (await stream_row(chat, sid2))["name"] == "!!DEACTIVATED:Verona"


async def test_get_stream_and_members(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    body = await api_ok(chat, "GET", f"/streams/{sid}", chat.hamlet)
    assert body["stream"]["name"] == "Verona" and body["stream"]["stream_id"] == sid
    body = await api_ok(chat, "GET", f"/streams/{sid}/members", chat.iago)
    assert body["subscribers"] == sorted([chat.hamlet.id, chat.cordelia.id])
    body = await api_ok(chat, "GET", "/get_stream_id", chat.cordelia, stream="verona")
    assert body["stream_id"] == sid
    # A guest who is not subscribed cannot see a public stream.
    assert_json_error(await chat.get(f"/streams/{sid}", chat.polonius), "Invalid stream ID")
    assert_json_error(await chat.get(f"/streams/{sid}/members", chat.polonius), "Invalid stream ID")
    assert_json_error(
        await chat.get("/get_stream_id", chat.polonius, stream="Verona"),
        "Invalid stream name 'Verona'",
    )
    assert_json_error(await chat.get("/streams/424242", chat.hamlet), "Invalid stream ID")


async def test_private_stream_reads(chat: ChatHarness) -> None:
    sid = await chat.make_stream("secret", [chat.hamlet], invite_only=True)
    for user in (chat.cordelia, chat.shiva, chat.polonius):
        assert_json_error(await chat.get(f"/streams/{sid}", user), "Invalid stream ID")
        assert_json_error(await chat.get(f"/streams/{sid}/members", user), "Invalid stream ID")
        assert_json_error(
            await chat.get("/get_stream_id", user, stream="secret"),
            "Invalid stream name 'secret'",
        )
    # Administrators may see its metadata and subscribers.
    body = await api_ok(chat, "GET", f"/streams/{sid}/members", chat.iago)
    assert body["subscribers"] == [chat.hamlet.id]
    body = await api_ok(chat, "GET", f"/streams/{sid}", chat.iago)
    assert body["stream"]["invite_only"] is True
