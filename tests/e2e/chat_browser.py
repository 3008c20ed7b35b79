"""Helpers for driving the chat's web client in Debian's Chromium with Playwright (see
tests/e2e/browser_server.py for the browser itself).
"""

from __future__ import annotations

import configparser
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from atrium.core.session_cookies import SESSION_COOKIE
from atrium.settings import Settings

# CHROMIUM, CHROMIUM_ARGS and chromium_or_skip are imported from here by the browser modules.
from tests.e2e.browser_server import (  # noqa: F401
    CHROMIUM,
    CHROMIUM_ARGS,
    BrowserServer,
    chromium_or_skip,
    connected_browser,
)
from tests.e2e.seed import ChatUser, create_chat_realm, prepare_data_dir, zuliprc
from tests.e2e.server import atrium_env, running_server

# Screenshots of the main views, kept after the run (the directory is ignored by git).
SCREENSHOTS = Path(__file__).resolve().parent / "output" / "chat_browser"


@dataclass
class Api:
    """One user's HTTP Basic access to /api/v1, for setting the scene."""

    site: str
    email: str
    key: str

    def call(self, method: str, path: str, **params: Any) -> dict[str, Any]:
        data = {k: v if isinstance(v, str) else orjson.dumps(v).decode() for k, v in params.items()}
        kwargs: dict[str, Any] = {"params": data} if method == "GET" else {"data": data}
        response = httpx.request(
            method, self.site + "/api/v1" + path, auth=(self.email, self.key), timeout=30, **kwargs
        )
        body: dict[str, Any] = response.json()
        assert body["result"] == "success", body
        return body


PASSWORD = "browser-pass-1"
USERS = {
    "olive": ("olive@e2e.test", "Olive Owner", "owner"),
    "mo": ("mo@e2e.test", "Mo Member", "member"),
    "pat": ("pat@e2e.test", "Pat Member", "member"),
}


@dataclass
class Site:
    """A running chat server with the three USERS, and their API access."""

    url: str
    api: dict[str, Api]
    ids: dict[str, int]
    # What start_site's `seed` wrote before the server started.
    seeded: Any = None
    # A signed-in session token per user, shared by the module's tests (see `session_token`).
    sessions: dict[str, str] = field(default_factory=dict)

    def session_token(self, short: str) -> str:
        """A live session of USERS[short], from the sign-in form's own POST, made once for the
        module and made anew when a test has ended it. A browser context given its cookie opens
        the client signed in, without loading the sign-in page and hashing the password again
        for every person of every test; test_sign_in_and_out signs in through the page."""
        email = USERS[short][0]
        with httpx.Client(base_url=self.url, timeout=30) as client:
            token = self.sessions.get(short)
            if token is not None:
                client.cookies.set(SESSION_COOKIE, token)
                if client.get("/login").status_code == 303:  # signed in: sent to the client
                    return token
                client.cookies.clear()
            form = client.get("/login")
            csrf = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
            assert csrf is not None, form.text
            signed_in = client.post(
                "/login",
                data={"username": email, "password": PASSWORD, "csrf_token": csrf[1]},
                headers={"Origin": self.url},
            )
            assert signed_in.status_code == 303, signed_in.text
            self.sessions[short] = signed_in.cookies[SESSION_COOKIE]
            return self.sessions[short]

    def stream(self, name: str, *members: str, private: bool = False) -> int:
        owner = self.api["olive"]
        owner.call(
            "POST",
            "/users/me/subscriptions",
            subscriptions=[{"name": name}],
            principals=[self.ids[m] for m in ("olive", *members)],
            invite_only=private,
        )
        return int(owner.call("GET", "/get_stream_id", stream=name)["stream_id"])


@contextmanager
def start_site(
    data_dir: Path, api_rate_limit: int = 2000, seed: Callable[[Settings], Any] | None = None
) -> Iterator[Site]:
    """A fresh organization with USERS, served by a real `atrium serve` process; `seed` writes
    more to its database before the server starts (its result is the site's `seeded`)."""
    # A browser test does in seconds what a person does in an hour: more than 200 requests a
    # minute, and more than 5 sign-ins in 30 minutes, for one user. The client waits out a 429;
    # the tests should not have to (tests/chat/test_web_sessions.py checks the login limit).
    env = atrium_env(
        data_dir,
        None,
        ATRIUM_SERVICES="chat",
        ATRIUM_RATE_LIMIT_API=str(api_rate_limit),
        ATRIUM_RATE_LIMIT_PASSWORD="1000",
    )
    # What `atrium chat create-realm` and `create-user` would make, written in-process.
    settings = prepare_data_dir(data_dir, None, None)
    create_chat_realm(
        settings,
        "Browser Test",
        [ChatUser(email, name, PASSWORD, role) for email, name, role in USERS.values()],
    )
    seeded = seed(settings) if seed is not None else None
    with running_server(env) as server:
        api = {}
        for short, (email, _name, _role) in USERS.items():
            config = configparser.ConfigParser()
            config.read_string(zuliprc(settings, email, server.url))
            api[short] = Api(server.url, email, config["api"]["key"])
        users = api["olive"].call("GET", "/users")["members"]
        ids = {
            s: next(u["user_id"] for u in users if u["email"] == e)
            for s, (e, _, _) in USERS.items()
        }
        yield Site(server.url, api, ids, seeded)


@dataclass
class Person:
    """A person at a browser: one context (its own cookies), one page, every console error."""

    page: Any
    errors: list[str] = field(default_factory=list)

    def watch(self) -> None:
        self.page.on(
            "console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text}")
        )
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on(
            "response",
            lambda r: r.status >= 400 and self.errors.append(f"HTTP {r.status} {r.url}"),
        )

    def sign_in(self, site: str, email: str, password: str) -> None:
        self.page.goto(site + "/")
        self.page.fill("#login-email", email)
        self.page.fill("#login-password", password)
        self.page.click("#login-submit")
        self.wait_ready()

    def wait_ready(self) -> None:
        """The client has loaded its state and shows a view (or say what went wrong)."""
        try:
            self.page.wait_for_selector("body[data-ready=true]", timeout=20_000)
        except Exception as exc:
            feed = (
                self.page.locator("#feed").inner_text()
                if self.page.locator("#feed").count()
                else ""
            )
            raise AssertionError(f"client not ready: {self.errors} {feed!r}") from exc

    def go(self, hash_: str) -> None:
        self.page.evaluate("h => { location.hash = h; }", hash_)
        self.page.wait_for_selector(".feed-status, article.message", timeout=10_000)

    def shot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def wait_until(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


# --- the fixtures every chat browser module shares (each module defines its own `site`) --------


@pytest.fixture(scope="module")
def browser(site: Site, browser_server: BrowserServer) -> Iterator[Any]:
    """One Chromium for the module's tests; each person gets a context of their own."""
    with connected_browser(browser_server) as connected:
        yield connected


@pytest.fixture
def people(browser: Any, site: Site) -> Iterator[Callable[..., Person]]:
    """`people("mo")`: a browser context signed in as that demo user (`None`: signed out), at
    the given viewport size."""
    contexts: list[Any] = []

    def open_person(short: str | None = None, width: int = 1280, height: int = 800) -> Person:
        context = browser.new_context(
            viewport={"width": width, "height": height}, accept_downloads=True
        )
        contexts.append(context)
        if short is not None:
            context.add_cookies(
                [
                    {
                        "name": SESSION_COOKIE,
                        "value": site.session_token(short),
                        "url": site.url,
                        "httpOnly": True,
                        "sameSite": "Lax",
                    }
                ]
            )
        person = Person(context.new_page())
        person.watch()
        if short is not None:
            person.page.goto(site.url + "/")
            person.wait_ready()
        return person

    yield open_person
    for context in contexts:
        context.close()
