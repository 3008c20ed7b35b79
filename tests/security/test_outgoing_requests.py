"""Outgoing requests to destinations users choose are held to the egress policy.

The attack: any member creates an outgoing-webhook bot whose `payload_url` names a service on the
server's loopback or private network, messages it, and reads the service's answer back as the
bot's reply; the failure notices told open ports from closed ones by naming the exception. Now
non-public destinations are refused unless the operator allows them, redirects are not followed,
and the owner only hears that the service could not be reached.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from atrium.chat import outgoing_webhooks
from atrium.core.egress import EgressPolicy, EgressRefused, is_public
from atrium.settings import Settings
from tests.chat import conftest as chat_fixtures
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error

pytestmark = pytest.mark.anyio

# The chat's harness (its conftest is not this folder's).
chat = chat_fixtures.chat
settings = chat_fixtures.settings

SECRET = b'{"content": "INTERNAL-ONLY: db_password=hunter2"}'


@dataclass
class Listener:
    """An internal-only service on loopback: what it received, and what it answers."""

    url: str = ""
    received: list[str] = field(default_factory=list)
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


def _serve(state: Listener) -> Iterator[Listener]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            state.received.append(f"{self.path} Host={self.headers['Host']}")
            self.send_response(state.status)
            for name, value in state.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(SECRET)))
            self.end_headers()
            self.wfile.write(SECRET)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def internal() -> Iterator[Listener]:
    yield from _serve(Listener())


@pytest.fixture
def second() -> Iterator[Listener]:
    yield from _serve(Listener())


async def _bot(chat: ChatHarness, url: str, name: str = "helper") -> int:
    response = await chat.post(
        "/bots",
        chat.hamlet,
        full_name=name.title(),
        short_name=name,
        bot_type=3,
        payload_url=json.dumps(url),
        interface_type=1,
    )
    assert response.status_code == 200, response.text
    return int(response.json()["user_id"])


async def _ask(chat: ChatHarness, bot_id: int) -> str:
    """Message the bot as its owner; what the bot answered."""
    await api_ok(
        chat, "POST", "/messages", chat.hamlet, type="private", to=f"[{bot_id}]", content="hi"
    )
    await outgoing_webhooks.wait_for_pending()
    narrow = json.dumps([{"operator": "dm", "operand": [bot_id]}])
    body = await api_ok(
        chat, "GET", "/messages", chat.hamlet, anchor="newest", num_before=1, num_after=0,
        narrow=narrow,
    )  # fmt: skip
    (reply,) = body["messages"]
    assert reply["sender_id"] == bot_id
    return str(reply["content"])


async def _owner_notice(chat: ChatHarness) -> str:
    body = await api_ok(
        chat, "GET", "/messages", chat.hamlet, anchor="newest", num_before=1, num_after=0
    )
    (notice,) = body["messages"]
    assert notice["sender_full_name"] == "Notification Bot"
    return str(notice["content"])


async def test_loopback_payload_url_is_refused_by_default(
    chat: ChatHarness, internal: Listener
) -> None:
    bot = await _bot(chat, internal.url)
    reply = await _ask(chat, bot)
    assert reply == "<p>Failure! Bot is unavailable</p>"
    assert "hunter2" not in reply
    assert internal.received == []  # no request reached the internal service
    notice = await _owner_notice(chat)
    assert "could not be reached" in notice
    assert "exception" not in notice and "Error" not in notice


async def test_closed_and_refused_ports_look_the_same(chat: ChatHarness) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    bot = await _bot(chat, f"http://127.0.0.1:{closed}/")
    assert await _ask(chat, bot) == "<p>Failure! Bot is unavailable</p>"
    assert "could not be reached" in await _owner_notice(chat)


async def test_other_schemes_are_refused_at_creation(chat: ChatHarness) -> None:
    for i, url in enumerate(
        ["file:///etc/passwd", "gopher://127.0.0.1:6379/_INFO", "dict://127.0.0.1:11211/"]
    ):
        response = await chat.post(
            "/bots", chat.hamlet, full_name=f"Bad {i}", short_name=f"bad{i}", bot_type=3,
            payload_url=json.dumps(url), interface_type=1,
        )  # fmt: skip
        assert_json_error(response, "payload_url is not a URL")


async def test_host_resolving_to_a_private_address_is_refused(
    chat: ChatHarness, internal: Listener
) -> None:
    # `localhost` is a name, not an address: the check is on what it resolves to.
    bot = await _bot(chat, internal.url.replace("127.0.0.1", "localhost"))
    assert await _ask(chat, bot) == "<p>Failure! Bot is unavailable</p>"
    assert internal.received == []


async def test_redirect_to_loopback_is_not_followed(
    chat: ChatHarness, settings: Settings, internal: Listener, second: Listener
) -> None:
    # The first hop is allowed (the operator's allowlist), and answers with a redirect to the
    # internal service, which must not be followed.
    chat.runtime.settings = settings.with_(egress_allow=("127.0.0.1",))
    internal.status, internal.headers = 302, {"Location": second.url}
    bot = await _bot(chat, internal.url)
    assert await _ask(chat, bot) == "<p>Failure! Third party responded with 302</p>"
    assert len(internal.received) == 1
    assert second.received == []


async def test_the_allowlist_opens_a_private_destination(
    chat: ChatHarness, settings: Settings, internal: Listener
) -> None:
    chat.runtime.settings = settings.with_(egress_allow=("127.0.0.0/8",))
    bot = await _bot(chat, internal.url)
    assert "hunter2" in await _ask(chat, bot)
    (call,) = internal.received
    # Connected to the checked address, with the URL's own host in the Host header.
    assert call.endswith(f"Host={internal.url.split('/')[2]}")


# --- the policy itself ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1",
        "0.0.0.0", "224.0.0.1", "240.0.0.1", "255.255.255.255", "::1", "::", "fe80::1",
        "fd00::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
    ],
)  # fmt: skip
def test_non_public_addresses(address: str) -> None:
    assert not is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses(address: str) -> None:
    assert is_public(ipaddress.ip_address(address))


async def test_a_name_with_any_private_address_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def getaddrinfo(host: str, port: int, **kwargs: Any) -> list[Any]:
        addresses = {"mixed.example": ["93.184.216.34", "10.0.0.5"], "ok.example": ["1.1.1.1"]}
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in addresses[host]]

    loop = asyncio.get_running_loop()
    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)
    policy = EgressPolicy()
    with pytest.raises(EgressRefused):
        await policy.resolve(httpx.URL("http://mixed.example/"), 5)
    assert str(await policy.resolve(httpx.URL("https://ok.example/"), 5)) == "1.1.1.1"
    allowed = EgressPolicy.from_settings(Settings(egress_allow=("10.0.0.0/24",)))
    assert str(await allowed.resolve(httpx.URL("http://mixed.example/"), 5)) == "93.184.216.34"
    by_name = EgressPolicy.from_settings(Settings(egress_allow=("Mixed.Example",)))
    assert str(await by_name.resolve(httpx.URL("http://mixed.example/"), 5)) == "93.184.216.34"


async def test_only_http_and_https_are_spoken() -> None:
    for url in ("file:///etc/passwd", "gopher://127.0.0.1/", "ftp://example.com/"):
        with pytest.raises(EgressRefused):
            await EgressPolicy().post(url, timeout=1, headers={})


def test_settings_read_the_allowlist_and_the_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATRIUM_EGRESS_ALLOW", " 10.0.0.0/8, hooks.internal ,")
    monkeypatch.setenv("ATRIUM_EGRESS_PROXY", "http://127.0.0.1:4750")
    configured = Settings.from_env()
    assert configured.egress_allow == ("10.0.0.0/8", "hooks.internal")
    policy = EgressPolicy.from_settings(configured)
    assert policy.proxy == "http://127.0.0.1:4750"
    assert policy.allowed_hosts == frozenset({"hooks.internal"})


async def test_through_the_proxy_the_proxy_decides(internal: Listener) -> None:
    # The loopback listener stands in for the egress proxy: it receives the request in the
    # proxy's absolute form, for a private destination this process does not check itself.
    proxy = internal.url.removesuffix("/hook")
    policy = EgressPolicy(proxy=proxy)
    response = await policy.post(
        "http://10.0.0.1:8080/hook", timeout=5, headers={}, json={"content": "x"}
    )
    assert response.status_code == 200
    (call,) = internal.received
    assert call.startswith("http://10.0.0.1:8080/hook ")
