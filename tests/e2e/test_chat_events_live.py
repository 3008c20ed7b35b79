"""Events over real sockets: the zulip client's event loop, and the scale-out mode's two workers."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from atrium.settings import Settings
from tests.conftest import PostgresServer
from tests.e2e.conftest import LiveChat
from tests.e2e.seed import ChatUser, create_chat_realm, zuliprc
from tests.e2e.server import LiveServer, atrium_env, running_servers

pytestmark = pytest.mark.e2e

REDIS_URL = "redis://127.0.0.1:6379/0"


class Received(Exception):
    """Raised from a callback to leave the client's endless event loop."""


def test_call_on_each_message_receives_a_message(live_chat: LiveChat) -> None:
    owner, member = live_chat.owner, live_chat.member
    owner.add_subscriptions(
        streams=[{"name": "general"}], principals=["owner@live.test", live_chat.member_email]
    )
    received: list[dict[str, Any]] = []
    errors: list[BaseException] = []

    def on_message(message: dict[str, Any]) -> None:
        received.append(message)
        raise Received

    def listen() -> None:
        try:
            member.call_on_each_message(on_message)
        except Received:
            pass
        except BaseException as exc:  # surfaced to the test below
            errors.append(exc)

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    # Keep sending until the listener (which registers asynchronously) hears one.
    for attempt in range(50):
        owner.send_message(
            {"type": "stream", "to": "general", "topic": "events", "content": f"ping {attempt}"}
        )
        listener.join(timeout=0.2)
        if not listener.is_alive():
            break
    assert not errors, errors
    assert received and received[0]["display_recipient"] == "general"
    # The client registers without apply_markdown, so it gets the raw Markdown.
    assert received[0]["content"].startswith("ping ")


@pytest.fixture
def scale_out(
    postgres_server: PostgresServer, tmp_path: Path
) -> Iterator[tuple[LiveServer, LiveServer, dict[str, str]]]:
    """Two `atrium serve` workers sharing PostgreSQL and Redis: (worker A, worker B, env)."""
    try:
        redis.Redis.from_url(REDIS_URL).ping()
    except redis.RedisError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis is required in CI: {exc}")
        pytest.skip(f"Redis not reachable: {exc}")
    url = postgres_server.new_database("chat")
    data_a, data_b = tmp_path / "a", tmp_path / "b"
    data_a.mkdir()
    data_b.mkdir()
    env_a = atrium_env(data_a, url, ATRIUM_REDIS_URL=REDIS_URL, ATRIUM_SERVICES="chat")
    env_b = atrium_env(data_b, url, ATRIUM_REDIS_URL=REDIS_URL, ATRIUM_SERVICES="chat")
    # What `atrium chat create-realm` and `create-user` would make, written in-process.
    create_chat_realm(
        _settings(env_a),
        "Scale",
        [ChatUser("a@scale.test", "Ann A", role="owner"), ChatUser("b@scale.test", "Bob B")],
    )
    try:
        with running_servers(env_a, env_b) as (worker_a, worker_b):
            yield worker_a, worker_b, env_a
    finally:
        postgres_server.drop(url)


def _settings(env: dict[str, str]) -> Settings:
    return Settings(
        data_dir=Path(env["ATRIUM_DATA_DIR"]),
        database_url=env["ATRIUM_DATABASE_URL"],
        migrate_on_start=False,
    )


def _key(env: dict[str, str], email: str) -> str:
    """The key `atrium chat api-key EMAIL` would print, read from the database."""
    text = zuliprc(_settings(env), email, "")
    return next(line.split("=", 1)[1] for line in text.splitlines() if line.startswith("key="))


def test_a_queue_registered_on_one_worker_is_served_by_the_other(
    scale_out: tuple[LiveServer, LiveServer, dict[str, str]],
) -> None:
    worker_a, worker_b, env = scale_out
    site_a, site_b = worker_a.url, worker_b.url
    ann = ("a@scale.test", _key(env, "a@scale.test"))
    bob = ("b@scale.test", _key(env, "b@scale.test"))
    resp = httpx.post(
        f"{site_a}/api/v1/users/me/subscriptions",
        auth=ann,
        data={
            "subscriptions": '[{"name": "general"}]',
            "principals": '["a@scale.test", "b@scale.test"]',
        },
    )
    assert resp.status_code == 200, resp.text
    queue = httpx.post(
        f"{site_a}/api/v1/register", auth=bob, data={"event_types": '["message"]'}
    ).json()
    assert queue["result"] == "success"
    # Bob long-polls through worker B; Ann sends through worker A.
    with httpx.Client(timeout=30) as client:
        result: dict[str, Any] = {}

        def poll() -> None:
            result["resp"] = client.get(
                f"{site_b}/api/v1/events",
                auth=bob,
                params={"queue_id": queue["queue_id"], "last_event_id": -1},
            )

        poller = threading.Thread(target=poll)
        poller.start()
        sent = httpx.post(
            f"{site_a}/api/v1/messages",
            auth=ann,
            data={"type": "stream", "to": "general", "topic": "t", "content": "across workers"},
        ).json()
        poller.join(timeout=20)
        assert not poller.is_alive()
    [event] = result["resp"].json()["events"]
    assert event["message"]["id"] == sent["id"]
    # The queue lives in Redis: it survives the worker that created it.
    events = httpx.get(
        f"{site_a}/api/v1/events",
        auth=bob,
        params={"queue_id": queue["queue_id"], "last_event_id": -1, "dont_block": "true"},
    ).json()
    assert [e["id"] for e in events["events"]] == [event["id"]]


def test_killing_a_worker_loses_no_queue(
    scale_out: tuple[LiveServer, LiveServer, dict[str, str]],
) -> None:
    worker_a, worker_b, env = scale_out
    site_a, site_b = worker_a.url, worker_b.url
    bob = ("b@scale.test", _key(env, "b@scale.test"))
    ann = ("a@scale.test", _key(env, "a@scale.test"))
    queue_id = httpx.post(
        f"{site_a}/api/v1/register", auth=bob, data={"event_types": '["message"]'}
    ).json()["queue_id"]
    httpx.post(
        f"{site_a}/api/v1/users/me/subscriptions",
        auth=ann,
        data={"subscriptions": '[{"name": "g"}]', "principals": '["a@scale.test", "b@scale.test"]'},
    )
    httpx.post(
        f"{site_a}/api/v1/messages",
        auth=ann,
        data={"type": "stream", "to": "g", "topic": "t", "content": "before the crash"},
    )
    worker_a.kill()
    events = httpx.get(
        f"{site_b}/api/v1/events",
        auth=bob,
        params={"queue_id": queue_id, "last_event_id": -1, "dont_block": "true"},
    ).json()
    assert [e["message"]["content"] for e in events["events"]] == ["before the crash"]
