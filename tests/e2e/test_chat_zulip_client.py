"""The official `zulip` Python client against a real `atrium serve` process."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import httpx
import pytest

from tests.e2e.conftest import LiveChat

pytestmark = pytest.mark.e2e


def test_streams_messages_and_users_through_the_zulip_client(live_chat: LiveChat) -> None:
    owner, member = live_chat.owner, live_chat.member
    settings = owner.get_server_settings()
    assert settings["result"] == "success"
    assert settings["zulip_feature_level"] == 185

    result = owner.add_subscriptions(
        streams=[{"name": "general", "description": "Everything"}],
        principals=["owner@live.test", live_chat.member_email],
    )
    assert result["result"] == "success", result
    assert result["subscribed"]["owner@live.test"] == ["general"]

    sent = member.send_message(
        {"type": "stream", "to": "general", "topic": "hello", "content": "Hello **world**"}
    )
    assert sent["result"] == "success", sent
    dm = owner.send_message({"type": "private", "to": [live_chat.member_email], "content": "psst"})
    assert dm["result"] == "success", dm

    fetched = owner.get_messages(
        {
            "anchor": "newest",
            "num_before": 10,
            "num_after": 0,
            "narrow": [
                {"operator": "stream", "operand": "general"},
                {"operator": "topic", "operand": "hello"},
            ],
        }
    )
    assert fetched["result"] == "success", fetched
    assert [m["id"] for m in fetched["messages"]] == [sent["id"]]
    assert "<strong>world</strong>" in fetched["messages"][0]["content"]

    raw = member.get_raw_message(sent["id"])
    assert raw["result"] == "success"
    assert raw["raw_content"] == "Hello **world**"

    dms = member.get_messages(
        {
            "anchor": "newest",
            "num_before": 5,
            "num_after": 0,
            "narrow": [{"operator": "is", "operand": "dm"}],
        }
    )
    assert [m["content"] for m in dms["messages"]] == ["<p>psst</p>"]

    subs = member.get_subscriptions()
    assert [s["name"] for s in subs["subscriptions"]] == ["general"]
    streams = member.get_streams()
    assert [s["name"] for s in streams["streams"]] == ["general"]

    members = owner.get_members()
    assert sorted(m["email"] for m in members["members"]) == [
        "hello-bot@live.test",
        "member@live.test",
        "owner@live.test",
    ]
    me = member.get_profile()
    assert me["email"] == live_chat.member_email
    by_id = owner.get_user_by_id(me["user_id"])
    assert by_id["user"]["full_name"] == "Mo Member"

    created = owner.create_user(
        {"email": "new@live.test", "password": "pw-12345", "full_name": "New Person"}
    )
    assert created["result"] == "success", created
    refused = member.create_user({"email": "x@live.test", "password": "pw", "full_name": "X Y"})
    assert refused["code"] == "UNAUTHORIZED_PRINCIPAL"


def test_bad_input_over_a_real_socket(live_chat_module: LiveChat) -> None:
    site = live_chat_module.site
    resp = httpx.get(f"{site}/api/v1/users/me")
    assert resp.status_code == 401
    assert resp.json()["code"] == "UNAUTHORIZED"
    resp = httpx.post(
        f"{site}/api/v1/fetch_api_key", data={"username": "owner@live.test", "password": "owner-pw"}
    )
    assert resp.status_code == 200
    key = resp.json()["api_key"]
    auth = ("owner@live.test", key)
    resp = httpx.post(
        f"{site}/api/v1/messages",
        auth=auth,
        data={"type": "stream", "to": "nowhere", "topic": "x", "content": "x"},
    )
    assert resp.status_code == 400
    assert resp.json()["code"] == "STREAM_DOES_NOT_EXIST"
    resp = httpx.get(
        f"{site}/api/v1/messages",
        auth=auth,
        params={"anchor": "newest", "num_before": "x", "num_after": "0"},
    )
    assert resp.status_code == 400
    assert resp.json()["msg"] == "num_before is not valid JSON"
    resp = httpx.get(f"{site}/api/v1/nope", auth=auth)
    assert resp.status_code == 404


class _Integration(BaseHTTPRequestHandler):
    """A stand-in outgoing-webhook integration: records each payload, answers with a reply."""

    received: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append(json.loads(raw))
        body = b'{"content": "Echo: got it"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_outgoing_webhook_bot_answers_through_the_server(live_chat_module: LiveChat) -> None:
    """The served process POSTs to the bot's URL after the send and posts its reply."""
    owner, member = live_chat_module.owner, live_chat_module.member
    _Integration.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Integration)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/hook"
        created = owner.call_endpoint(
            url="bots",
            method="POST",
            request={
                "full_name": "Echo Bot",
                "short_name": "echo",
                "bot_type": 3,
                "payload_url": json.dumps(url),
                "interface_type": 1,
            },
        )
        assert created["result"] == "success", created
        sent = member.send_message(
            {"type": "private", "to": [created["user_id"]], "content": "hello bot"}
        )
        assert sent["result"] == "success", sent
        deadline = time.monotonic() + 30
        replies: list[dict[str, Any]] = []
        while time.monotonic() < deadline and not replies:
            fetched = member.get_messages({"anchor": "newest", "num_before": 5, "num_after": 0})
            replies = [m for m in fetched["messages"] if m["sender_id"] == created["user_id"]]
            time.sleep(0.2)
        assert [m["content"] for m in replies] == ["<p>Echo: got it</p>"]
        (payload,) = _Integration.received
        assert payload["trigger"] == "private_message"
        assert payload["data"] == "hello bot"
        assert payload["message"]["id"] == sent["id"]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
