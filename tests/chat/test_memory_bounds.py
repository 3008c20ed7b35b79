"""What the chat service keeps between requests stays within the byte bounds of its settings:
the message cache, the display data and the event queues (embedded mode)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from atrium.chat.events.bus import MemoryEventQueues, Notice, QueueOptions, event_size
from atrium.chat.queries import message_cache
from atrium.settings import CacheLimits, Settings
from tests.chat.conftest import (
    REDIS_URL,
    ChatHarness,
    assert_json_error,
    assert_json_success,
    chat_settings,
    redis_reachable,
)

pytestmark = pytest.mark.anyio

MESSAGES_BYTES = 256 * 1024
QUEUE_BYTES = 40_000


@pytest.fixture
def settings(data_dir: Path, database_url: str | None) -> Settings:
    """Small bounds, so that a test can pass them; on PostgreSQL the events go through Redis,
    whose queues are bounded too."""
    limits = CacheLimits(
        messages=MESSAGES_BYTES,
        display=16 * 1024,
        event_queue=QUEUE_BYTES,
        event_queues=10 * QUEUE_BYTES,
    )
    redis_url = REDIS_URL if database_url is not None and redis_reachable() else None
    return chat_settings(data_dir, database_url, caches=limits, redis_url=redis_url)


def body(n: int) -> str:
    return f"message {n}: " + " ".join(f"**word{i}** `code{i}`" for i in range(60))


async def fetch(chat: ChatHarness, anchor: Any, before: int, after: int) -> list[dict[str, Any]]:
    narrow = orjson.dumps([{"operator": "stream", "operand": "Verona"}]).decode()
    resp = await chat.get(
        "/messages",
        chat.hamlet,
        anchor=anchor,
        num_before=before,
        num_after=after,
        narrow=narrow,
    )
    messages: list[dict[str, Any]] = assert_json_success(resp)["messages"]
    return messages


def caches_of(chat: ChatHarness) -> message_cache.MessageCaches:
    found: message_cache.MessageCaches = chat.runtime.db.caches[message_cache.CACHE_KEY]
    return found


def cached_bytes(chat: ChatHarness) -> int:
    caches = caches_of(chat)
    return sum(
        cache.bytes
        for apply_markdown in (False, True)
        for cache in (caches.objects[apply_markdown], caches.with_flags[apply_markdown])
    )


async def test_message_cache_stays_within_its_bound_and_serves_the_same(
    chat: ChatHarness,
) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    for n in range(150):
        await chat.send_stream(chat.cordelia, "Verona", f"topic {n % 7}", body(n))
    everything = await fetch(chat, "newest", 200, 0)
    assert len(everything) == 150
    generations = caches_of(chat).with_flags[True].generation
    # Windows all over the history, again and again: far more than the bound holds.
    for _ in range(3):
        for start in range(0, 150, 10):
            window = await fetch(chat, everything[start]["id"], 0, 9)
            assert window == everything[start : start + 10]
            assert cached_bytes(chat) <= MESSAGES_BYTES
    assert caches_of(chat).with_flags[True].generation > generations  # it did evict
    assert await fetch(chat, "newest", 200, 0) == everything


async def test_display_data_stays_within_its_bound(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    for n in range(80):
        name = f"sender{n}"
        await chat.make_user(name, full_name=f"Sender Number {n} " + "x" * 40)
        await chat.subscribe(getattr(chat, name), "Verona")
        await chat.send_stream(getattr(chat, name), "Verona", f"topic {n}", f"hello {n}")
    messages = await fetch(chat, "newest", 100, 0)
    assert [m["sender_full_name"] for m in messages] == [
        f"Sender Number {n} " + "x" * 40 for n in range(80)
    ]
    caches = caches_of(chat)
    assert caches.realms
    for display in caches.realms.values():
        assert display.senders.bytes <= 8 * 1024
    assert caches.topic_links.bytes <= 8 * 1024


async def test_a_queue_too_far_behind_is_dropped_and_a_polled_one_is_not(
    chat: ChatHarness,
) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    idle = assert_json_success(await chat.post("/register", chat.hamlet, event_types='["message"]'))
    polled = assert_json_success(
        await chat.post("/register", chat.cordelia, event_types='["message"]')
    )
    last_event_id = -1
    for n in range(30):
        await chat.send_stream(chat.cordelia, "Verona", "topic", body(n))
        events = assert_json_success(
            await chat.get(
                "/events",
                chat.cordelia,
                queue_id=polled["queue_id"],
                last_event_id=last_event_id,
                dont_block="true",
            )
        )["events"]
        last_event_id = events[-1]["id"]
    assert last_event_id == 29
    resp = await chat.get(
        "/events", chat.hamlet, queue_id=idle["queue_id"], last_event_id=-1, dont_block="true"
    )
    assert_json_error(resp, f"Bad event queue ID: {idle['queue_id']}", code="BAD_EVENT_QUEUE_ID")
    # The client registers again, as Zulip clients do, and is served.
    again = assert_json_success(
        await chat.post("/register", chat.hamlet, event_types='["message"]')
    )
    await chat.send_stream(chat.cordelia, "Verona", "topic", "after")
    resp = await chat.get(
        "/events", chat.hamlet, queue_id=again["queue_id"], last_event_id=-1, dont_block="true"
    )
    [event] = assert_json_success(resp)["events"]
    assert event["message"]["content"] == "after"


def notice(user_ids: list[int], n: int) -> Notice:
    return Notice({"type": "message", "message": {"id": n, "content": "x" * 500}}, user_ids)


async def test_past_the_total_bound_the_least_recently_polled_queue_goes() -> None:
    one_event = event_size(notice([], 0).event)
    queues = MemoryEventQueues(max_queue_bytes=100 * one_event, max_total_bytes=10 * one_event)
    first = await queues.register(1, QueueOptions())
    second = await queues.register(2, QueueOptions())
    third = await queues.register(3, QueueOptions())
    await queues.get_events(second, 2, None, 0)  # polled: more recently than the first
    await queues.get_events(third, 3, None, 0)
    for n in range(4):
        await queues.publish([notice([1, 2, 3], n)])  # 12 events: 2 over
    assert await queues.get_events(first, 1, None, 0) is None
    assert queues.total_bytes <= 10 * one_event
    assert len(await queues.get_events(second, 2, None, 0) or []) == 4
    # Acknowledged events free their bytes.
    await queues.get_events(second, 2, 3, 0)
    await queues.get_events(third, 3, 3, 0)
    assert queues.total_bytes == 0
