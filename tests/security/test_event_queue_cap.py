"""One user holds a bounded number of event queues.

The attack: a member registers queue after queue (200 a minute under the API rate limit) and
never polls them; every event for that member is then copied into each, multiplying the work of
every publish until the idle timeout collects them. Now registering past the per-user bound drops
that user's least recently polled queue, whose client registers again on its next poll (Zulip's
BAD_EVENT_QUEUE_ID recovery); other users' queues are untouched.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from atrium.chat.events.bus import MemoryEventQueues, Notice, QueueOptions
from atrium.settings import Settings
from tests.chat import conftest as chat_fixtures
from tests.chat.conftest import ChatHarness, assert_json_error, assert_json_success

pytestmark = pytest.mark.anyio

chat = chat_fixtures.chat
CAP = 3


@pytest.fixture
def settings(data_dir: Path, database_url: str | None) -> Settings:
    """The chat harness's two modes (in-process queues; PostgreSQL with Redis queues when Redis
    is there), with a small cap."""
    redis = chat_fixtures.REDIS_URL if database_url and chat_fixtures.redis_reachable() else None
    base = chat_fixtures.chat_settings(data_dir, database_url, redis_url=redis)
    return base.with_(caches=dataclasses.replace(base.caches, event_queues_per_user=CAP))


async def _register(chat: ChatHarness, user: chat_fixtures.Member) -> str:
    body = assert_json_success(await chat.post("/register", user, event_types='["message"]'))
    return str(body["queue_id"])


async def _poll(chat: ChatHarness, user: chat_fixtures.Member, queue_id: str):  # type: ignore[no-untyped-def]
    return await chat.get("/events", user, queue_id=queue_id, last_event_id=-1, dont_block="true")


async def test_registering_past_the_cap_drops_the_least_recently_polled(
    chat: ChatHarness,
) -> None:
    other = await _register(chat, chat.cordelia)
    queues = [await _register(chat, chat.hamlet) for _ in range(CAP)]
    assert_json_success(await _poll(chat, chat.hamlet, queues[0]))  # polled: now the newest
    newest = await _register(chat, chat.hamlet)
    gone = queues[1]
    assert_json_error(
        await _poll(chat, chat.hamlet, gone), f"Bad event queue ID: {gone}",
        code="BAD_EVENT_QUEUE_ID",
    )  # fmt: skip
    for kept in (queues[0], queues[2], newest):
        assert_json_success(await _poll(chat, chat.hamlet, kept))
    assert_json_success(await _poll(chat, chat.cordelia, other))


async def test_a_thousand_registrations_hold_at_most_the_cap_in_memory() -> None:
    queues = MemoryEventQueues(max_queues_per_user=50)
    ids = [await queues.register(7, QueueOptions()) for _ in range(1000)]
    assert len(queues.by_user[7]) == 50 and len(queues.queues) == 50
    assert set(ids[-50:]) == queues.by_user[7]
    await queues.publish([Notice({"type": "heartbeat"}, [7])])
    assert all(len(q.events) == 1 for q in queues.queues.values())


def test_the_cap_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATRIUM_EVENT_QUEUES_PER_USER", "8")
    assert Settings.from_env().caches.event_queues_per_user == 8
    assert Settings().caches.event_queues_per_user == 50
