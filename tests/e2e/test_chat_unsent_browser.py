"""Never losing a message, in Debian's Chromium against a real `atrium serve` that the tests
stop and start again on the same port: a message typed while the server is down is kept, shown
as not sent, survives a reload and is sent once by Retry; the client is back within 3 s of the
server's return and shows what was missed; a message in flight when the session expires comes
back in the compose box, and signing in again returns to the same view with the text there.
"""

from __future__ import annotations

import configparser
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import free_port
from tests.e2e.browser_server import BrowserServer, connected_browser
from tests.e2e.chat_browser import (
    PASSWORD,
    USERS,
    Api,
    Person,
    Site,
    chromium_or_skip,
    wait_until,
)
from tests.e2e.seed import ChatUser, create_chat_realm, prepare_data_dir, zuliprc
from tests.e2e.server import _stop, _wait_ready, atrium_env, start_server

pytestmark = pytest.mark.e2e


@dataclass
class Restartable:
    """`atrium serve` on one port that a test may stop and start again."""

    env: dict[str, str]
    port: int
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process = start_server(self.env, self.port, self.log)
        _wait_ready(self.process, self.url + "/api/v1/server_settings", self.log)

    def stop(self) -> None:
        """Gone at once, as a crash or a pulled cable would leave it (a graceful stop waits
        for the open long polls)."""
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            _stop(self.process)
            self.process = None


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Restartable, Site]]:
    chromium_or_skip()
    data_dir = tmp_path_factory.mktemp("chat-unsent")
    env = atrium_env(
        data_dir,
        None,
        ATRIUM_SERVICES="chat",
        ATRIUM_RATE_LIMIT_API="2000",
        ATRIUM_RATE_LIMIT_PASSWORD="1000",
    )
    settings = prepare_data_dir(data_dir, None, None)
    create_chat_realm(
        settings,
        "Browser Test",
        [ChatUser(email, name, PASSWORD, role) for email, name, role in USERS.values()],
    )
    running = Restartable(env, free_port(), data_dir / "server.log")
    running.start()
    try:
        api = {}
        for short, (email, _name, _role) in USERS.items():
            config = configparser.ConfigParser()
            config.read_string(zuliprc(settings, email, running.url))
            api[short] = Api(running.url, email, config["api"]["key"])
        users = api["olive"].call("GET", "/users")["members"]
        ids = {
            s: next(u["user_id"] for u in users if u["email"] == e)
            for s, (e, _, _) in USERS.items()
        }
        yield running, Site(running.url, api, ids)
    finally:
        running.stop()


@pytest.fixture(scope="module")
def browser(server: tuple[Restartable, Site], browser_server: BrowserServer) -> Iterator[Any]:
    with connected_browser(browser_server) as connected:
        yield connected


@pytest.fixture
def mo(browser: Any, server: tuple[Restartable, Site]) -> Iterator[Person]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    person = Person(context.new_page())
    person.sign_in(server[1].url, USERS["mo"][0], PASSWORD)
    yield person
    context.close()


def messages_with(site: Site, text: str) -> list[dict[str, Any]]:
    found = site.api["olive"].call(
        "GET",
        "/messages",
        anchor="newest",
        num_before=100,
        num_after=0,
        narrow=[{"operator": "search", "operand": text}],
    )["messages"]
    return [m for m in found if text in m["content"]]


def compose(page: Any, topic: str, text: str) -> None:
    if page.locator("#compose-textarea").is_hidden():
        page.keyboard.press("c")
    page.fill("#compose-topic", topic)
    page.fill("#compose-textarea", text)


def test_message_typed_during_an_outage_is_kept_and_sent_once(
    mo: Person, server: tuple[Restartable, Site]
) -> None:
    running, site = server
    stream_id = site.stream("outage", "mo")
    page = mo.page
    mo.go(f"#narrow/stream/{stream_id}-outage/topic/down")
    running.stop()
    page.wait_for_selector("#connection-banner.offline", timeout=10_000)
    assert "Unable to connect" in page.inner_text("#connection-banner")
    mo.shot("offline-banner")

    compose(page, "down", "typed during the outage")
    page.press("#compose-textarea", "Enter")
    unsent = page.locator("article.local-echo.failed", has_text="typed during the outage")
    unsent.wait_for(timeout=10_000)
    assert unsent.locator(".not-sent").inner_text() == "Not sent"
    # A second one, thought better of: Delete drops it for good.
    page.fill("#compose-textarea", "never mind this one")
    page.press("#compose-textarea", "Enter")
    dropped = page.locator("article.local-echo.failed", has_text="never mind this one")
    dropped.wait_for(timeout=10_000)
    dropped.locator(".unsent-delete").click()
    assert dropped.count() == 0
    page.fill("#compose-textarea", "still typing")
    mo.shot("not-sent")

    running.start()
    back = time.monotonic()
    site.api["olive"].call(
        "POST",
        "/messages",
        type="stream",
        to=stream_id,
        topic="down",
        content="while you were away",
    )
    page.locator("article.message", has_text="while you were away").wait_for(timeout=10_000)
    assert time.monotonic() - back <= 3.0
    wait_until(lambda: page.locator("#connection-banner").is_hidden(), timeout=3)
    assert messages_with(site, "typed during the outage") == []  # nothing resent by itself

    page.reload()
    mo.wait_ready()
    assert page.locator("#compose-textarea").input_value() == "still typing"
    unsent = page.locator("article.local-echo.failed", has_text="typed during the outage")
    unsent.wait_for(timeout=10_000)
    unsent.locator(".unsent-retry").click()
    page.locator("article.message:not(.local-echo)", has_text="typed during the outage").wait_for(
        timeout=10_000
    )
    assert page.locator("article.local-echo").count() == 0
    unsent_again = page.locator("article.local-echo")
    assert unsent_again.count() == 0
    assert len(messages_with(site, "typed during the outage")) == 1
    assert messages_with(site, "never mind this one") == []

    # Signing out on purpose leaves no typed text in the browser's storage.
    kept = "() => Object.keys(localStorage).filter((k) => k.startsWith('atrium.'))"
    assert page.evaluate(kept) == [f"atrium.compose.{site.ids['mo']}"]
    page.click("#logout")
    page.wait_for_selector("#login-email")
    assert page.evaluate(kept) == []


def send_with_answer_lost(mo: Person, text: str) -> Any:
    """Send `text` with the events held back and the answer to the send lost on its way back,
    though the server got it; the not-sent message shown for it."""
    page = mo.page

    def drop_answer(route: Any) -> None:
        route.fetch()  # the server gets it and answers ...
        route.abort("connectionreset")  # ... and the answer is lost on the way

    page.route("**/json/messages", drop_answer)
    compose(page, "lost", text)
    page.press("#compose-textarea", "Enter")
    unsent = page.locator("article.local-echo.failed", has_text=text)
    unsent.wait_for(timeout=10_000)
    page.unroute("**/json/messages")
    return unsent


def test_lost_answer_is_recognised_and_not_sent_twice(
    mo: Person, server: tuple[Restartable, Site]
) -> None:
    """A send reaches the server but its answer is lost. With the event queue alive, the
    message's event (carrying its `local_id`) settles it; with the queue gone (a server
    restart), Retry finds the message already there. Either way it is there once."""
    running, site = server
    stream_id = site.stream("lossy", "mo")
    page = mo.page
    page.route("**/json/events?*", lambda route: route.abort("connectionreset"))
    page.reload()
    mo.wait_ready()
    mo.go(f"#narrow/stream/{stream_id}-lossy/topic/lost")

    send_with_answer_lost(mo, "answer lost, queue kept")
    page.unroute("**/json/events?*")
    wait_until(lambda: page.locator("article.local-echo").count() == 0)
    page.locator("article.message", has_text="answer lost, queue kept").wait_for(timeout=10_000)
    assert len(messages_with(site, "answer lost, queue kept")) == 1

    page.route("**/json/events?*", lambda route: route.abort("connectionreset"))
    running.stop()  # the poll under way ends, and the queue with the server
    running.start()
    unsent = send_with_answer_lost(mo, "answer lost, queue gone")
    page.unroute("**/json/events?*")
    # The client finds its queue gone, registers again and reloads the feed, which shows the
    # message the server got; the not-sent one stays beside it until Retry.
    page.locator("article.message:not(.local-echo)", has_text="answer lost, queue gone").wait_for(
        timeout=10_000
    )
    assert unsent.is_visible()
    unsent.locator(".unsent-retry").click()
    wait_until(lambda: page.locator("article.local-echo").count() == 0)
    assert len(messages_with(site, "answer lost, queue gone")) == 1


def test_expired_session_with_a_message_in_flight(
    mo: Person, server: tuple[Restartable, Site]
) -> None:
    running, site = server
    stream_id = site.stream("expiry", "mo")
    page = mo.page
    place = f"#narrow/stream/{stream_id}-expiry/topic/late"
    mo.go(place)
    core = Path(running.env["ATRIUM_DATA_DIR"]) / "core.sqlite3"

    def expire_then_send(route: Any) -> None:
        with sqlite3.connect(core) as conn:
            conn.execute("UPDATE browser_session SET expires_at = 0")
        route.continue_()

    page.route("**/json/messages", expire_then_send)
    compose(page, "late", "sent as the session ran out")
    page.press("#compose-textarea", "Enter")
    page.wait_for_selector("#connection-banner.expired", timeout=10_000)
    assert "session has expired" in page.inner_text("#connection-banner")
    assert page.locator("#compose-textarea").input_value() == "sent as the session ran out"
    mo.shot("session-expired")
    page.unroute("**/json/messages")

    page.click("#sign-in-again")
    page.fill("#login-email", USERS["mo"][0])
    page.fill("#login-password", PASSWORD)
    page.click("#login-submit")
    mo.wait_ready()
    assert page.evaluate("location.hash") == place
    assert page.locator("#compose-textarea").input_value() == "sent as the session ran out"
    assert page.locator("#compose-topic").input_value() == "late"
    page.press("#compose-textarea", "Enter")
    page.locator(
        "article.message:not(.local-echo)", has_text="sent as the session ran out"
    ).wait_for(timeout=10_000)
    assert len(messages_with(site, "sent as the session ran out")) == 1
