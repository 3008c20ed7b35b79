"""GET /users, GET /users/{id or email}, GET /users/me, POST /users."""

from __future__ import annotations

import pytest

from atrium.chat import schema
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error, assert_json_success

pytestmark = pytest.mark.anyio


async def test_get_users(chat: ChatHarness) -> None:
    body = await api_ok(chat, "GET", "/users", chat.hamlet)
    by_email = {m["email"]: m for m in body["members"]}
    hamlet = by_email[chat.hamlet.email]
    assert hamlet["full_name"] == "King Hamlet"
    assert hamlet["role"] == 400 and not hamlet["is_admin"] and not hamlet["is_owner"]
    assert hamlet["avatar_url"] is None  # client_gravatar defaults to true
    assert "profile_data" not in hamlet
    owner = by_email[chat.desdemona.email]
    assert owner["is_owner"] and owner["is_admin"] and owner["role"] == 100
    assert by_email[chat.polonius.email]["is_guest"] is True
    assert by_email[chat.shiva.email]["role"] == 300
    body = await api_ok(
        chat,
        "GET",
        "/users",
        chat.hamlet,
        client_gravatar=False,
        include_custom_profile_fields=True,
    )
    hamlet = {m["email"]: m for m in body["members"]}[chat.hamlet.email]
    assert hamlet["avatar_url"].startswith("https://secure.gravatar.com/avatar/")
    assert hamlet["profile_data"] == {}


async def test_bots_show_their_owner(chat: ChatHarness) -> None:
    bot = await chat.make_user("helper-bot", bot_owner=chat.hamlet, full_name="Helper Bot")
    body = await api_ok(chat, "GET", f"/users/{bot.id}", chat.cordelia)
    assert body["user"]["is_bot"] is True
    assert body["user"]["bot_owner_id"] == chat.hamlet.id
    assert body["user"]["bot_type"] == 1


async def test_get_user_by_id_and_email(chat: ChatHarness) -> None:
    body = await api_ok(chat, "GET", f"/users/{chat.cordelia.id}", chat.hamlet)
    assert body["user"]["email"] == chat.cordelia.email
    body = assert_json_success(await chat.get(f"/users/{chat.cordelia.email}", chat.hamlet))
    assert body["user"]["user_id"] == chat.cordelia.id
    assert_json_error(await chat.get("/users/424242", chat.hamlet), "No such user")
    assert_json_error(await chat.get("/users/ghost@zulip.test", chat.hamlet), "No such user")


async def test_get_me(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "x")
    body = await api_ok(chat, "GET", "/users/me", chat.hamlet)
    assert body["user_id"] == chat.hamlet.id
    assert body["email"] == chat.hamlet.email
    assert body["max_message_id"] == mid
    assert body["profile_data"] == {}


async def test_create_user_needs_an_administrator(chat: ChatHarness) -> None:
    before = await chat.count(schema.user)
    resp = await chat.post(
        "/users", chat.hamlet, email="new@zulip.test", password="pw12345", full_name="New Person"
    )
    assert_json_error(resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")
    assert await chat.count(schema.user) == before
    body = await api_ok(
        chat,
        "POST",
        "/users",
        chat.iago,
        email="new@zulip.test",
        password="pw12345",
        full_name="New Person",
    )
    created = assert_json_success(await chat.get(f"/users/{body['user_id']}", chat.iago))
    assert created["user"]["email"] == "new@zulip.test"
    assert created["user"]["role"] == 400


async def test_create_user_errors(chat: ChatHarness) -> None:
    resp = await chat.post(
        "/users", chat.iago, email=chat.hamlet.email, password="pw", full_name="Dup"
    )
    assert_json_error(resp, f"Email '{chat.hamlet.email}' already in use")
    resp = await chat.post(
        "/users", chat.iago, email="not-an-email", password="pw", full_name="Bad"
    )
    assert_json_error(resp, "Invalid email 'not-an-email'")
    resp = await chat.post("/users", chat.iago, email="x@zulip.test", password="pw", full_name="")
    assert_json_error(resp, "Name too short!")
    resp = await chat.post("/users", chat.iago, email="x@zulip.test", full_name="X Y")
    assert_json_error(resp, "Missing 'password' argument", code="REQUEST_VARIABLE_MISSING")


async def test_new_user_is_announced(chat: ChatHarness) -> None:
    from tests.chat.conftest import listen

    stream_id = await chat.make_stream("Verona", [chat.hamlet])
    assert_json_success(await chat.post("/default_streams", chat.iago, stream_id=stream_id))
    hamlet = await listen(chat, chat.hamlet, ["realm_user", "subscription"])
    body = await api_ok(
        chat,
        "POST",
        "/users",
        chat.iago,
        email="new@zulip.test",
        password="pw12345",
        full_name="New Person",
    )
    events = await hamlet.events()
    [added] = [e for e in events if e["type"] == "realm_user"]
    assert added["op"] == "add"
    assert added["person"]["user_id"] == body["user_id"]
    assert added["person"]["email"] == "new@zulip.test"
    [peer] = [e for e in events if e["type"] == "subscription"]
    assert peer == {
        "type": "subscription",
        "op": "peer_add",
        "stream_ids": [stream_id],
        "user_ids": [body["user_id"]],
        "id": peer["id"],
    }
