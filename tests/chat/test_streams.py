"""POST and GET /users/me/subscriptions, GET /streams."""

from __future__ import annotations

import pytest

from atrium.chat import schema
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error, assert_json_success

pytestmark = pytest.mark.anyio


async def test_subscribe_creates_streams(chat: ChatHarness) -> None:
    body = await api_ok(
        chat,
        "POST",
        "/users/me/subscriptions",
        chat.desdemona,
        subscriptions=[{"name": "sample", "description": "A *sample* stream"}, {"name": "two"}],
        principals=[chat.desdemona.email, chat.hamlet.email],
    )
    assert body["subscribed"] == {
        chat.desdemona.email: ["sample", "two"],
        chat.hamlet.email: ["sample", "two"],
    }
    assert body["already_subscribed"] == {}
    body = await api_ok(
        chat, "POST", "/users/me/subscriptions", chat.hamlet, subscriptions=[{"name": "sample"}]
    )
    assert body["already_subscribed"] == {chat.hamlet.email: ["sample"]}
    subs = await api_ok(
        chat, "GET", "/users/me/subscriptions", chat.hamlet, include_subscribers=True
    )
    sample = next(s for s in subs["subscriptions"] if s["name"] == "sample")
    assert sample["description"] == "A *sample* stream"
    assert sample["subscribers"] == sorted([chat.desdemona.id, chat.hamlet.id])
    assert sample["invite_only"] is False
    assert sample["history_public_to_subscribers"] is True
    assert sample["is_muted"] is False and sample["in_home_view"] is True
    assert sample["stream_post_policy"] == 1
    assert sample["message_retention_days"] is None
    assert isinstance(sample["can_remove_subscribers_group_id"], int)
    assert sample["color"].startswith("#")
    subs = await api_ok(chat, "GET", "/users/me/subscriptions", chat.hamlet)
    assert "subscribers" not in subs["subscriptions"][0]


async def test_private_streams(chat: ChatHarness) -> None:
    body = await api_ok(
        chat,
        "POST",
        "/users/me/subscriptions",
        chat.iago,
        subscriptions=[{"name": "secret"}],
        invite_only=True,
    )
    assert body["subscribed"] == {chat.iago.email: ["secret"]}
    subs = assert_json_success(await chat.get("/users/me/subscriptions", chat.iago))
    secret = subs["subscriptions"][0]
    assert secret["invite_only"] is True
    assert secret["history_public_to_subscribers"] is False
    # A member cannot join it, nor see it.
    resp = await chat.post(
        "/users/me/subscriptions", chat.hamlet, subscriptions=[{"name": "secret"}]
    )
    assert_json_error(resp, "Unable to access stream (secret).")
    streams = assert_json_success(await chat.get("/streams", chat.hamlet))["streams"]
    assert "secret" not in [s["name"] for s in streams]
    resp = await chat.post(
        "/users/me/subscriptions",
        chat.hamlet,
        subscriptions=[{"name": "secret"}],
        authorization_errors_fatal=False,
    )
    body = assert_json_success(resp)
    assert body["unauthorized"] == ["secret"]


async def test_subscribe_errors_write_nothing(chat: ChatHarness) -> None:
    before = await chat.count(schema.stream)
    resp = await chat.post("/users/me/subscriptions", chat.polonius, subscriptions=[{"name": "g"}])
    assert_json_error(resp, "Not allowed for guest users")
    resp = await chat.post("/users/me/subscriptions", chat.hamlet, subscriptions=[{"name": ""}])
    assert_json_error(resp, "Stream name can't be empty!")
    resp = await chat.post(
        "/users/me/subscriptions", chat.hamlet, subscriptions=[{"name": "x" * 61}]
    )
    assert_json_error(resp, "Stream name too long (limit: 60 characters).")
    resp = await chat.post(
        "/users/me/subscriptions", chat.hamlet, subscriptions=[{"name": "bad\x01name"}]
    )
    assert_json_error(resp, "Invalid character in stream name, at position 4!")
    resp = await chat.post(
        "/users/me/subscriptions",
        chat.hamlet,
        subscriptions=[{"name": "ok"}],
        principals=["ghost@zulip.test"],
    )
    assert_json_error(resp, "No such user")
    resp = await chat.post("/users/me/subscriptions", chat.hamlet, subscriptions="not json")
    assert_json_error(resp, "subscriptions is not valid JSON")
    resp = await chat.post(
        "/users/me/subscriptions",
        chat.hamlet,
        subscriptions=[{"name": "p"}],
        invite_only=False,
        history_public_to_subscribers=False,
    )
    assert_json_error(resp, "Invalid parameters")
    assert await chat.count(schema.stream) == before


async def test_get_streams(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    await chat.make_stream("Denmark", [chat.cordelia])
    await chat.make_stream("secret", [chat.iago], invite_only=True)
    body = await api_ok(chat, "GET", "/streams", chat.hamlet)
    assert [s["name"] for s in body["streams"]] == ["Denmark", "Verona"]
    body = await api_ok(chat, "GET", "/streams", chat.hamlet, include_public=False)
    assert [s["name"] for s in body["streams"]] == ["Verona"]
    resp = await chat.get("/streams", chat.hamlet, include_all_active=True)
    assert_json_error(resp, "User not authorized for this query")
    body = await api_ok(chat, "GET", "/streams", chat.iago, include_all_active=True)
    assert [s["name"] for s in body["streams"]] == ["Denmark", "secret", "Verona"]
    # A guest sees only what it is subscribed to.
    body = await api_ok(chat, "GET", "/streams", chat.polonius)
    assert body["streams"] == []
