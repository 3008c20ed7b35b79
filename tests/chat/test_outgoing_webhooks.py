"""Outgoing-webhook bots: created with their service, called on a mention or a direct message
(a local HTTP server on 127.0.0.1 stands in for the integration), their answers posted."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from atrium.chat import outgoing_webhooks
from atrium.chat.delivery import ScheduledDelivery
from atrium.settings import Settings
from tests.chat.conftest import (
    ChatHarness,
    Member,
    api_ok,
    assert_json_error,
    assert_json_success,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The stand-in integration listens on loopback, which only the operator's allowlist opens."""
    return settings.with_(egress_allow=("127.0.0.1",))


@dataclass
class Endpoint:
    """What the stand-in integration received, and what it answers next."""

    url: str
    received: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    body: bytes = b'{"content": "Hello from the webhook"}'
    release: threading.Event = field(default_factory=threading.Event)
    hang: bool = False


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    state = Endpoint("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers["Content-Length"]))
            state.received.append(
                {
                    "content_type": self.headers["Content-Type"],
                    "user_agent": self.headers["User-Agent"],
                    "body": raw.decode(),
                }
            )
            if state.hang:
                state.release.wait(20)
                return
            self.send_response(state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(state.body)))
            self.end_headers()
            self.wfile.write(state.body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join()


async def bots_ok(
    chat: ChatHarness, method: str, path: str, user: Member, **params: Any
) -> dict[str, Any]:
    """The /bots endpoints, which Zulip's OpenAPI document gives no response schema."""
    body: dict[str, Any] = assert_json_success(await chat.request(method, path, user, params))
    return body


async def make_outgoing_bot(
    chat: ChatHarness, owner: Member, url: str, interface: int = 1
) -> dict[str, Any]:
    return await bots_ok(
        chat,
        "POST",
        "/bots",
        owner,
        full_name="Echo Bot",
        short_name="echo",
        bot_type=3,
        payload_url=json.dumps(url),
        interface_type=interface,
    )


async def send(chat: ChatHarness, user: Member, topic: str, content: str) -> int:
    """A stream message to "lobby" through POST /messages, as a client sends it."""
    body = await api_ok(
        chat, "POST", "/messages", user, type="stream", to="lobby", topic=topic, content=content
    )
    return int(body["id"])


async def newest(chat: ChatHarness, user: Member, n: int = 1) -> list[dict[str, Any]]:
    body = await api_ok(chat, "GET", "/messages", user, anchor="newest", num_before=n, num_after=0)
    return list(body["messages"])[-n:]


async def test_create_with_service_and_bad_input(chat: ChatHarness, endpoint: Endpoint) -> None:
    created = await make_outgoing_bot(chat, chat.hamlet, endpoint.url)
    bots = (await api_ok(chat, "POST", "/register", chat.hamlet, fetch_event_types=["realm_bot"]))[
        "realm_bots"
    ]
    (bot,) = [b for b in bots if b["user_id"] == created["user_id"]]
    (service,) = bot["services"]
    assert bot["bot_type"] == 3
    assert service["base_url"] == endpoint.url and service["interface"] == 1
    assert len(service["token"]) == 32
    changed = await bots_ok(
        chat,
        "PATCH",
        f"/bots/{created['user_id']}",
        chat.hamlet,
        service_payload_url=json.dumps(endpoint.url + "/v2"),
        service_interface=2,
    )
    assert changed["service_payload_url"] == endpoint.url + "/v2"
    assert changed["service_interface"] == 2
    cases = [
        ({}, "payload_url is not a URL"),
        ({"payload_url": json.dumps("ftp://example.com/x")}, "payload_url is not a URL"),
        ({"payload_url": json.dumps("not a url")}, "payload_url is not a URL"),
        ({"payload_url": json.dumps(endpoint.url), "interface_type": 9}, "Invalid interface type"),
        ({"payload_url": '"unterminated'}, "Argument 'payload_url' is not valid JSON."),
    ]
    for i, (params, message) in enumerate(cases):
        response = await chat.post(
            "/bots", chat.hamlet, full_name=f"Bad {i}", short_name=f"bad{i}", bot_type=3, **params
        )
        assert_json_error(response, message)
    assert_json_error(
        await chat.patch(
            f"/bots/{created['user_id']}",
            chat.hamlet,
            service_payload_url=json.dumps("javascript:alert(1)"),
        ),
        "payload_url is not a URL",
    )


async def test_mention_posts_the_message_and_the_reply_follows(
    chat: ChatHarness, endpoint: Endpoint
) -> None:
    created = await make_outgoing_bot(chat, chat.hamlet, endpoint.url)
    await chat.make_stream("lobby", [chat.hamlet, chat.cordelia])
    await send(chat, chat.cordelia, "plans", "no mention, no call")
    await outgoing_webhooks.wait_for_pending()
    assert endpoint.received == []
    sent = await api_ok(
        chat,
        "POST",
        "/messages",
        chat.cordelia,
        type="stream",
        to="lobby",
        topic="plans",
        content="@**Echo Bot** what is up?",
    )
    await outgoing_webhooks.wait_for_pending()
    (call,) = endpoint.received
    assert call["content_type"] == "application/json"
    assert call["user_agent"].startswith("ZulipOutgoingWebhook/")
    payload = json.loads(call["body"])
    state = await api_ok(chat, "POST", "/register", chat.hamlet, fetch_event_types=["realm_bot"])
    (bot,) = [b for b in state["realm_bots"] if b["user_id"] == created["user_id"]]
    assert payload["trigger"] == "mention"
    assert payload["data"] == "@**Echo Bot** what is up?"
    assert payload["token"] == bot["services"][0]["token"]
    assert payload["bot_email"] == bot["email"]
    assert payload["bot_full_name"] == "Echo Bot"
    assert payload["message"]["id"] == sent["id"]
    assert payload["message"]["content"] == "@**Echo Bot** what is up?"
    assert 'data-user-id="' in payload["message"]["rendered_content"]
    assert payload["message"]["subject"] == "plans"
    assert payload["message"]["sender_id"] == chat.cordelia.id
    assert "flags" not in payload["message"]
    (reply,) = await newest(chat, chat.cordelia)
    assert reply["sender_id"] == created["user_id"]
    assert (reply["display_recipient"], reply["subject"]) == ("lobby", "plans")
    assert reply["content"] == "<p>Hello from the webhook</p>"
    # The bot's own reply (a bot's message) calls nobody: no loop.
    assert len(endpoint.received) == 1
    # A silent mention does not call the bot either.
    await send(chat, chat.cordelia, "plans", "@_**Echo Bot** quietly")
    await outgoing_webhooks.wait_for_pending()
    assert len(endpoint.received) == 1


async def test_private_stream_reaches_only_subscribed_bots(
    chat: ChatHarness, endpoint: Endpoint
) -> None:
    created = await make_outgoing_bot(chat, chat.hamlet, endpoint.url)
    await chat.make_stream("secret", [chat.hamlet, chat.cordelia], invite_only=True)
    sent = await api_ok(
        chat, "POST", "/messages", chat.cordelia, type="stream", to="secret", topic="t",
        content="@**Echo Bot** the plan is secret",
    )  # fmt: skip
    await outgoing_webhooks.wait_for_pending()
    assert endpoint.received == []
    await api_ok(
        chat, "POST", "/users/me/subscriptions", chat.hamlet,
        subscriptions=json.dumps([{"name": "secret"}]), principals=f"[{created['user_id']}]",
    )  # fmt: skip
    await api_ok(
        chat, "POST", "/messages", chat.cordelia, type="stream", to="secret", topic="t",
        content="@**Echo Bot** now you may hear",
    )  # fmt: skip
    await outgoing_webhooks.wait_for_pending()
    (call,) = endpoint.received
    assert json.loads(call["body"])["message"]["id"] != sent["id"]


async def test_direct_message_and_no_reply(chat: ChatHarness, endpoint: Endpoint) -> None:
    created = await make_outgoing_bot(chat, chat.hamlet, endpoint.url)
    endpoint.body = b'{"response_not_required": true}'
    await api_ok(
        chat, "POST", "/messages", chat.cordelia, type="private", to=f"[{created['user_id']}]",
        content="ping",
    )  # fmt: skip
    await outgoing_webhooks.wait_for_pending()
    (call,) = endpoint.received
    assert json.loads(call["body"])["trigger"] == "private_message"
    (last,) = await newest(chat, chat.cordelia)
    assert last["content"] == "<p>ping</p>"  # nothing answered
    endpoint.body = b'{"content": "pong"}'
    await api_ok(
        chat, "POST", "/messages", chat.cordelia, type="private", to=f"[{created['user_id']}]",
        content="ping again",
    )  # fmt: skip
    await outgoing_webhooks.wait_for_pending()
    (reply,) = await newest(chat, chat.cordelia)
    assert reply["sender_id"] == created["user_id"] and reply["content"] == "<p>pong</p>"
    assert {r["id"] for r in reply["display_recipient"]} == {chat.cordelia.id, created["user_id"]}


@pytest.mark.parametrize(
    ("status", "body", "failure", "calls"),
    [
        (500, b"oops", "Failure! Bot is unavailable", 3),
        (404, b"gone", "Failure! Third party responded with 404", 1),
        (200, b"not json", "Failure! Invalid JSON in response", 1),
    ],
)
async def test_failures_are_told(
    chat: ChatHarness, endpoint: Endpoint, status: int, body: bytes, failure: str, calls: int
) -> None:
    created = await make_outgoing_bot(chat, chat.hamlet, endpoint.url)
    endpoint.status, endpoint.body = status, body
    await chat.make_stream("lobby", [chat.hamlet, chat.cordelia])
    await send(chat, chat.cordelia, "t", "@**Echo Bot** hi")
    await outgoing_webhooks.wait_for_pending()
    assert len(endpoint.received) == calls
    (reply,) = await newest(chat, chat.cordelia)
    assert reply["sender_id"] == created["user_id"]
    assert reply["content"] == f"<p>{failure}</p>"
    # The owner hears the details from the Notification Bot.
    (notice,) = await newest(chat, chat.hamlet)
    assert notice["sender_full_name"] == "Notification Bot"
    assert "triggered an outgoing webhook" in notice["content"]
    assert f"status code <em>{status}</em>" in notice["content"]
    # The endpoint's answer is not passed on: it could be an internal service's.
    assert body.decode() not in notice["content"]


async def test_timeout_is_retried_then_reported(
    chat: ChatHarness, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(outgoing_webhooks, "TIMEOUT_SECONDS", 0.2)
    endpoint.hang = True
    created = await make_outgoing_bot(chat, chat.hamlet, endpoint.url)
    await api_ok(
        chat, "POST", "/messages", chat.cordelia, type="private", to=f"[{created['user_id']}]",
        content="are you there?",
    )  # fmt: skip
    await outgoing_webhooks.wait_for_pending()
    assert len(endpoint.received) == 3
    (reply,) = await newest(chat, chat.cordelia)
    assert reply["content"] == "<p>Failure! Bot is unavailable</p>"
    (notice,) = await newest(chat, chat.hamlet)
    # Why it failed is not told: the reasons would tell open ports from closed ones.
    assert "could not be reached" in notice["content"]
    assert "ReadTimeout" not in notice["content"]


async def test_scheduled_message_calls_the_bot_when_delivered(
    chat: ChatHarness, endpoint: Endpoint
) -> None:
    created = await make_outgoing_bot(chat, chat.hamlet, endpoint.url)
    now = time.time()
    await api_ok(
        chat, "POST", "/scheduled_messages", chat.cordelia, type="direct",
        to=f"[{created['user_id']}]", content="later", scheduled_delivery_timestamp=int(now) + 60,
    )  # fmt: skip
    delivery = ScheduledDelivery(chat.runtime, clock=lambda: now + 120)
    assert await delivery.deliver_due() == 1
    await outgoing_webhooks.wait_for_pending()
    (call,) = endpoint.received
    assert json.loads(call["body"])["data"] == "later"
    (reply,) = await newest(chat, chat.cordelia)
    assert reply["content"] == "<p>Hello from the webhook</p>"
