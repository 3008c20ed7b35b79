"""Bots: GET/POST /bots, PATCH/DELETE /bots/{id}, API key regeneration, realm_bot events and the
register section, and what a bot sees."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest

from tests.chat.conftest import (
    ChatHarness,
    Member,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio


def as_bot(email: str, api_key: str) -> dict[str, str]:
    token = base64.b64encode(f"{email}:{api_key}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


async def make_bot(chat: ChatHarness, owner: Member, short: str, **extra: Any) -> dict[str, Any]:
    resp = await chat.post(
        "/bots", owner, full_name=f"{short.capitalize()} Bot", short_name=short, **extra
    )
    return assert_json_success(resp)


async def test_create_list_and_use_a_bot(chat: ChatHarness) -> None:
    admin_probe = await listen(chat, chat.iago, ["realm_bot"])
    other_probe = await listen(chat, chat.cordelia, ["realm_bot"])
    await chat.make_stream("secret", [chat.hamlet], invite_only=True)
    created = await make_bot(chat, chat.hamlet, "helper", default_sending_stream="secret")
    assert created["default_sending_stream"] == "secret"
    assert set(created) >= {"user_id", "api_key", "avatar_url", "default_all_public_streams"}
    email = "helper-bot@127.0.0.1"
    body = assert_json_success(await chat.get("/bots", chat.hamlet))
    assert [(b["username"], b["full_name"]) for b in body["bots"]] == [(email, "Helper Bot")]
    assert assert_json_success(await chat.get("/bots", chat.cordelia))["bots"] == []

    [event] = await admin_probe.events()
    assert event["op"] == "add" and event["bot"]["user_id"] == created["user_id"]
    assert event["bot"]["owner_id"] == chat.hamlet.id and event["bot"]["bot_type"] == 1
    assert await other_probe.events() == []
    state = await api_ok(chat, "POST", "/register", chat.hamlet, fetch_event_types=["realm_bot"])
    assert [b["user_id"] for b in state["realm_bots"]] == [created["user_id"]]
    state = await api_ok(chat, "POST", "/register", chat.cordelia, fetch_event_types=["realm_bot"])
    assert state["realm_bots"] == []
    kinds = ["realm_embedded_bots", "realm_incoming_webhook_bots"]
    state = await api_ok(chat, "POST", "/register", chat.cordelia, fetch_event_types=kinds)
    assert state["realm_embedded_bots"] == [] and state["realm_incoming_webhook_bots"] == []
    user = (await api_ok(chat, "GET", f"/users/{created['user_id']}", chat.cordelia))["user"]
    assert user["is_bot"] and user["bot_owner_id"] == chat.hamlet.id

    # The bot speaks with its own key and sees the streams it is subscribed to.
    headers = as_bot(email, created["api_key"])
    resp = await chat.client.get("/api/v1/users/me/subscriptions", headers=headers)
    assert assert_json_success(resp)["subscriptions"] == []
    await api_ok(
        chat,
        "POST",
        "/users/me/subscriptions",
        chat.hamlet,
        subscriptions=[{"name": "secret"}],
        principals=[created["user_id"]],
    )
    resp = await chat.client.get("/api/v1/users/me/subscriptions", headers=headers)
    assert [s["name"] for s in assert_json_success(resp)["subscriptions"]] == ["secret"]
    resp = await chat.client.post(
        "/api/v1/messages",
        headers=headers,
        data={"type": "stream", "to": "secret", "topic": "t", "content": "hi"},
    )
    assert_json_success(resp)


async def test_bot_creation_errors(chat: ChatHarness) -> None:
    resp = await chat.post("/bots", chat.hamlet, full_name="Some Bot", short_name="")
    assert_json_error(resp, "Bad name or username")
    resp = await chat.post("/bots", chat.hamlet, full_name="Some Bot", short_name="a b")
    assert_json_error(resp, "Bad name or username")
    resp = await chat.post("/bots", chat.hamlet, full_name="X", short_name="x")
    assert_json_error(resp, "Name too short!")
    resp = await chat.post("/bots", chat.hamlet, short_name="x")
    assert_json_error(resp, "Missing 'full_name' argument", code="REQUEST_VARIABLE_MISSING")
    await make_bot(chat, chat.hamlet, "one")
    resp = await chat.post("/bots", chat.cordelia, full_name="Other Bot", short_name="one")
    assert_json_error(resp, "Username already in use")
    resp = await chat.post("/bots", chat.cordelia, full_name="One Bot", short_name="two")
    assert_json_error(resp, "Name is already in use!")
    resp = await chat.post("/bots", chat.hamlet, full_name="Out Bot", short_name="out", bot_type=3)
    assert_json_error(resp, "payload_url is not a URL")  # an outgoing webhook needs its URL
    resp = await chat.post("/bots", chat.hamlet, full_name="Emb Bot", short_name="emb", bot_type=4)
    assert_json_error(resp, "Invalid bot type")  # embedded bots are not served
    resp = await chat.post("/bots", chat.polonius, full_name="Guest Bot", short_name="guest")
    assert_json_error(resp, "Not allowed for guest users")
    resp = await chat.post(
        "/bots", chat.hamlet, full_name="S Bot", short_name="s", default_sending_stream="nowhere"
    )
    assert_json_error(resp, "Invalid stream name 'nowhere'")
    hook = await make_bot(chat, chat.hamlet, "hook", bot_type=2)
    user = (await api_ok(chat, "GET", f"/users/{hook['user_id']}", chat.hamlet))["user"]
    assert user["bot_type"] == 2


async def test_update_regenerate_and_deactivate(chat: ChatHarness) -> None:
    bot = await make_bot(chat, chat.hamlet, "worker")
    bot_id = bot["user_id"]
    resp = await chat.patch(f"/bots/{bot_id}", chat.cordelia, full_name="Stolen Bot")
    assert_json_error(resp, "Insufficient permission")
    resp = await chat.patch(f"/bots/{chat.cordelia.id}", chat.iago, full_name="Not A Bot")
    assert_json_error(resp, "No such bot")
    probe = await listen(chat, chat.hamlet, ["realm_bot"])
    body = assert_json_success(
        await chat.patch(f"/bots/{bot_id}", chat.hamlet, full_name="Busy Bot")
    )
    assert body["full_name"] == "Busy Bot" and body["bot_owner"] == chat.hamlet.email
    [event] = await probe.events()
    assert event["op"] == "update" and event["bot"] == {"user_id": bot_id, "full_name": "Busy Bot"}

    old_key = bot["api_key"]
    email = "worker-bot@127.0.0.1"
    body = assert_json_success(await chat.post(f"/bots/{bot_id}/api_key/regenerate", chat.hamlet))
    assert body["api_key"] != old_key
    resp = await chat.client.get("/api/v1/users/me", headers=as_bot(email, old_key))
    assert resp.status_code == 401
    resp = await chat.client.get("/api/v1/users/me", headers=as_bot(email, body["api_key"]))
    assert_json_success(resp)
    resp = await chat.post(f"/bots/{bot_id}/api_key/regenerate", chat.cordelia)
    assert_json_error(resp, "Insufficient permission")

    # Ownership moves to cordelia, who may then change it; hamlet may not.
    assert_json_success(
        await chat.patch(f"/bots/{bot_id}", chat.iago, bot_owner_id=chat.cordelia.id)
    )
    assert_json_success(await chat.patch(f"/bots/{bot_id}", chat.cordelia, full_name="Cord Bot"))
    resp = await chat.patch(f"/bots/{bot_id}", chat.hamlet, full_name="Ham Bot")
    assert_json_error(resp, "Insufficient permission")
    resp = await chat.patch(f"/bots/{bot_id}", chat.iago, bot_owner_id=424242)
    assert_json_error(resp, "Failed to change owner, no such user")

    probe = await listen(chat, chat.cordelia, ["realm_bot", "realm_user"])
    assert_json_success(await chat.delete(f"/bots/{bot_id}", chat.cordelia))
    ops = [(e["type"], e["op"]) for e in await probe.events()]
    assert ("realm_bot", "remove") in ops and ("realm_user", "remove") in ops
    assert assert_json_success(await chat.get("/bots", chat.cordelia))["bots"] == []
    resp = await chat.delete(f"/bots/{bot_id}", chat.cordelia)
    assert_json_error(resp, "No such bot")


async def test_regenerate_own_api_key(chat: ChatHarness) -> None:
    body = assert_json_success(await chat.post("/users/me/api_key/regenerate", chat.hamlet))
    assert body["api_key"] != chat.hamlet.api_key
    assert (await chat.get("/users/me", chat.hamlet)).status_code == 401
    headers = as_bot(chat.hamlet.email, body["api_key"])
    assert_json_success(await chat.client.get("/api/v1/users/me", headers=headers))


async def test_bot_with_an_uploaded_avatar(chat: ChatHarness) -> None:
    from tests.chat.uploads_helpers import png_bytes, post_files

    image = png_bytes((5, 6, 7))
    resp = await post_files(
        chat,
        "/bots",
        chat.hamlet,
        [("bot.png", image, "image/png")],
        {"full_name": "Pic Bot", "short_name": "pic"},
    )
    created = assert_json_success(resp)
    assert created["avatar_url"].startswith(f"/user_avatars/{chat.realm_id}/")
    assert (await chat.client.get(created["avatar_url"])).content == image
    two = [("a.png", image, "image/png"), ("b.png", image, "image/png")]
    resp = await post_files(
        chat, "/bots", chat.hamlet, two, {"full_name": "Two Bot", "short_name": "two"}
    )
    assert_json_error(resp, "You may only upload one file at a time")
    # A refused bot leaves no stored image behind.
    other = png_bytes((9, 8, 7))
    resp = await post_files(
        chat,
        "/bots",
        chat.hamlet,
        [("c.png", other, "image/png")],
        {"full_name": "Pic Bot", "short_name": "pic2"},
    )
    assert_json_error(resp, "Name is already in use!")
    stored = {
        p.name for p in (chat.runtime.settings.data_dir / "uploads").rglob("*") if p.is_file()
    }
    assert hashlib.sha256(other).hexdigest() not in stored
