"""The chat test harness: an app over a fresh database, named users, factories, assertions.

Named users follow Zulip's test suite: desdemona (owner), iago (administrator), hamlet and
cordelia (members), polonius (guest).
"""

from __future__ import annotations

import base64
import functools
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.messages import SendRequest, send_message
from atrium.chat.actions.realm import create_realm
from atrium.chat.actions.streams import StreamOptions, subscribe
from atrium.chat.actions.users import NewUser, create_user
from atrium.chat.events import Outcome
from atrium.chat.models import (
    ROLE_ADMINISTRATOR,
    ROLE_GUEST,
    ROLE_MEMBER,
    ROLE_MODERATOR,
    ROLE_OWNER,
    User,
)
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn
from atrium.server import create_app
from atrium.settings import RateLimits, Settings
from tests.conftest import copy_sqlite_templates


@dataclass(frozen=True)
class Member:
    id: int
    email: str
    full_name: str
    api_key: str
    role: int

    def auth(self) -> dict[str, str]:
        token = base64.b64encode(f"{self.email}:{self.api_key}".encode()).decode()
        return {"Authorization": f"Basic {token}"}


def _encode(params: dict[str, Any] | None) -> dict[str, str]:
    """Zulip's convention: strings as they are, everything else JSON-encoded."""
    out = {}
    for key, value in (params or {}).items():
        out[key] = value if isinstance(value, str) else orjson.dumps(value).decode()
    return out


class ChatHarness:
    def __init__(self, runtime: ChatRuntime, client: httpx.AsyncClient, realm_id: int) -> None:
        self.runtime = runtime
        self.client = client
        self.realm_id = realm_id
        self.users: dict[str, Member] = {}

    def __getattr__(self, name: str) -> Member:
        users = self.__dict__.get("users", {})
        if name in users:
            return users[name]  # type: ignore[no-any-return]
        raise AttributeError(name)

    # Factories ---------------------------------------------------------------------------

    async def make_user(
        self,
        short_name: str,
        role: int = ROLE_MEMBER,
        full_name: str | None = None,
        bot_owner: Member | None = None,
        password: str | None = None,
    ) -> Member:
        email = f"{short_name}@zulip.test"
        full_name = full_name or short_name.capitalize()
        new = NewUser(
            email=email,
            full_name=full_name,
            role=role,
            password=password,
            bot_owner_id=bot_owner.id if bot_owner else None,
        )
        user_id = await self.runtime.db.write(create_user, self.realm_id, new)
        row = await self.runtime.db.read(
            lambda conn: conn.one(sa.select(schema.user).where(schema.user.c.id == user_id))
        )
        user = Member(user_id, email, full_name, row["api_key"], role)
        self.users[short_name] = user
        return user

    async def acting(self, user: Member) -> User:
        row = await self.runtime.db.read(
            lambda conn: conn.one(sa.select(schema.user).where(schema.user.c.id == user.id))
        )
        return User.from_row(row)

    async def make_stream(
        self,
        name: str,
        subscribers: list[Member],
        *,
        invite_only: bool = False,
        history_public_to_subscribers: bool | None = None,
        stream_post_policy: int = 1,
        creator: Member | None = None,
    ) -> int:
        actor = await self.acting(creator or self.users["desdemona"])
        options = StreamOptions(
            invite_only=invite_only,
            history_public_to_subscribers=history_public_to_subscribers,
            stream_post_policy=stream_post_policy,
        )
        ids = [u.id for u in subscribers] or [actor.id]

        def write(conn: Conn) -> Outcome[int]:
            outcome = subscribe(conn, actor, [{"name": name}], ids, options, True)
            if not subscribers:  # the creator was only needed to create it
                conn.execute(
                    sa.update(schema.subscription)
                    .where(schema.subscription.c.user_id == actor.id)
                    .values(active=False)
                )
            stream_id = int(
                conn.scalar(sa.select(schema.stream.c.id).where(schema.stream.c.name == name))
            )
            return Outcome(stream_id, outcome.notices)

        return await self.runtime.write(write)

    async def subscribe(self, user: Member, stream_name: str, by: Member | None = None) -> None:
        """Subscribe `user`, added by `by` (default: the owner, who may add anyone anywhere)."""
        actor = await self.acting(by or self.users["desdemona"])
        await self.runtime.write(
            subscribe, actor, [{"name": stream_name}], [user.id], StreamOptions(), True
        )

    async def send_stream(self, sender: Member, stream: str, topic: str, content: str) -> int:
        actor = await self.acting(sender)
        return await self.runtime.write(
            send_message, actor, SendRequest("stream", stream, content, topic, "test")
        )

    async def send_dm(self, sender: Member, to: list[Member], content: str) -> int:
        actor = await self.acting(sender)
        return await self.runtime.write(
            send_message, actor, SendRequest("direct", [u.id for u in to], content, None, "test")
        )

    # HTTP ------------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        user: Member | None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        all_headers = {**(user.auth() if user else {}), **(headers or {})}
        url = "/api/v1" + path
        if method in {"GET", "HEAD"}:
            return await self.client.request(
                method, url, params=_encode(params), headers=all_headers
            )
        return await self.client.request(method, url, data=_encode(params), headers=all_headers)

    async def get(self, path: str, user: Member | None, **params: Any) -> httpx.Response:
        return await self.request("GET", path, user, params)

    async def post(self, path: str, user: Member | None, **params: Any) -> httpx.Response:
        return await self.request("POST", path, user, params)

    async def patch(self, path: str, user: Member | None, **params: Any) -> httpx.Response:
        return await self.request("PATCH", path, user, params)

    async def delete(self, path: str, user: Member | None, **params: Any) -> httpx.Response:
        return await self.request("DELETE", path, user, params)

    async def count(self, table: sa.Table) -> int:
        return int(
            await self.runtime.db.read(
                lambda conn: conn.scalar(sa.select(sa.func.count()).select_from(table))
            )
        )


def assert_json_success(resp: httpx.Response) -> dict[str, Any]:
    assert resp.status_code == 200, resp.text
    body: dict[str, Any] = resp.json()
    assert body["result"] == "success"
    assert body["msg"] == ""
    return body


def assert_json_error(
    resp: httpx.Response, msg: str, status: int = 400, code: str | None = "BAD_REQUEST"
) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    body: dict[str, Any] = resp.json()
    assert body["result"] == "error"
    assert body["msg"] == msg
    if code is None:
        assert "code" not in body
    else:
        assert body["code"] == code
    return body


def chat_settings(data_dir: Path, database_url: str | None, **changes: Any) -> Settings:
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        rate_limits=RateLimits(enabled=False),
        **changes,
    )


REDIS_URL = "redis://127.0.0.1:6379/0"


@functools.cache
def redis_reachable() -> bool:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError:
        return False
    return True


@pytest.fixture
def settings(data_dir: Path, database_url: str | None, sqlite_templates: Path) -> Settings:
    """The two deployment modes: SQLite with in-process events and rate limits (embedded), and
    PostgreSQL with Redis (scale-out), so that every chat test runs against both."""
    # Both backends' databases come migrated (the session's templates), so the app's start-up
    # upgrade would be a no-op.
    if database_url is None:
        copy_sqlite_templates(sqlite_templates, data_dir)
        return chat_settings(data_dir, None, migrate_on_start=False)
    if not redis_reachable():
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis is required in CI and is not reachable at {REDIS_URL}")
        # PostgreSQL alone; events in process
        return chat_settings(data_dir, database_url, migrate_on_start=False)
    return chat_settings(data_dir, database_url, redis_url=REDIS_URL, migrate_on_start=False)


@pytest.fixture
async def chat(settings: Settings) -> AsyncIterator[ChatHarness]:
    app = create_app(settings, services=("chat",))
    runtime: ChatRuntime = app.state.services["chat"].state["runtime"]
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            realm_id = await runtime.db.write(create_realm, "Zulip Test", "zulip")
            harness = ChatHarness(runtime, client, realm_id)
            await harness.make_user("desdemona", ROLE_OWNER)
            await harness.make_user("iago", ROLE_ADMINISTRATOR)
            await harness.make_user("shiva", ROLE_MODERATOR)
            await harness.make_user("hamlet", ROLE_MEMBER, "King Hamlet")
            await harness.make_user("cordelia", ROLE_MEMBER, "Cordelia, Lear's daughter")
            await harness.make_user("polonius", ROLE_GUEST)
            yield harness


async def api_ok(
    chat: ChatHarness, method: str, path: str, user: Member | None, **params: Any
) -> dict[str, Any]:
    """A request that must succeed, with a body that validates against Zulip's OpenAPI."""
    from tests.chat.openapi import assert_matches_openapi

    body = assert_json_success(await chat.request(method, path, user, params))
    assert_matches_openapi(method, path, body)
    return body


class EventProbe:
    """A client's event queue, read without long-polling: `await probe.events()`."""

    def __init__(self, chat: ChatHarness, user: Member, queue_id: str) -> None:
        self.chat, self.user, self.queue_id = chat, user, queue_id

    async def events(self, last_event_id: int | None = None) -> list[dict[str, Any]]:
        events = await self.chat.runtime.events.get_events(
            self.queue_id, self.user.id, last_event_id, timeout=0
        )
        assert events is not None, "the queue is gone"
        return events


async def listen(
    chat: ChatHarness,
    user: Member,
    event_types: list[str] | None = None,
    apply_markdown: bool = True,
    client_gravatar: bool = False,
) -> EventProbe:
    """Open an event queue for `user`, as POST /register does (to test what actions publish)."""
    from atrium.chat.events import QueueOptions

    options = QueueOptions(
        None if event_types is None else frozenset(event_types), apply_markdown, client_gravatar
    )
    queue_id = await chat.runtime.events.register(user.id, options)
    return EventProbe(chat, user, queue_id)
