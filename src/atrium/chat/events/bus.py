"""Notices (an event and the users it concerns) and the in-process bus that queues them."""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")

# A queue nobody polled for this long is dropped (Zulip's DEFAULT_EVENT_QUEUE_TIMEOUT_SECS).
QUEUE_TIMEOUT_SECONDS = 600


@dataclass(frozen=True)
class Notice:
    """One event and the ids of the users whose queues receive it."""

    event: dict[str, Any]
    user_ids: Sequence[int]


@dataclass
class Outcome(Generic[T]):
    """What an action's transaction returns: its value and the events it caused."""

    value: T
    notices: list[Notice] = field(default_factory=list)


@dataclass
class EventQueue:
    queue_id: str
    user_id: int
    event_types: frozenset[str] | None  # None: every type
    last_touched: float = field(default_factory=time.monotonic)
    events: deque[dict[str, Any]] = field(default_factory=deque)
    next_id: itertools.count[int] = field(default_factory=itertools.count)
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)

    def wants(self, event: dict[str, Any]) -> bool:
        return self.event_types is None or event["type"] in self.event_types

    def push(self, event: dict[str, Any]) -> None:
        self.events.append({**event, "id": next(self.next_id)})
        self.wakeup.set()

    def acknowledge(self, last_event_id: int) -> None:
        while self.events and self.events[0]["id"] <= last_event_id:
            self.events.popleft()


class EventBus:
    """In-process queues (the embedded mode): one dict of queues, indexed by user too."""

    def __init__(self) -> None:
        self.queues: dict[str, EventQueue] = {}
        self.by_user: dict[int, set[str]] = {}

    def register(self, user_id: int, event_types: Iterable[str] | None) -> EventQueue:
        queue = EventQueue(
            queue_id=str(uuid.uuid4()),
            user_id=user_id,
            event_types=None if event_types is None else frozenset(event_types),
        )
        self.queues[queue.queue_id] = queue
        self.by_user.setdefault(user_id, set()).add(queue.queue_id)
        return queue

    def get(self, queue_id: str, user_id: int) -> EventQueue | None:
        queue = self.queues.get(queue_id)
        if queue is None or queue.user_id != user_id:
            return None
        queue.last_touched = time.monotonic()
        return queue

    def delete(self, queue_id: str) -> None:
        queue = self.queues.pop(queue_id, None)
        if queue is not None:
            self.by_user.get(queue.user_id, set()).discard(queue_id)

    async def publish(self, notices: Iterable[Notice]) -> None:
        for notice in notices:
            for user_id in notice.user_ids:
                for queue_id in self.by_user.get(user_id, ()):
                    queue = self.queues[queue_id]
                    if queue.wants(notice.event):
                        queue.push(notice.event)

    def expire_idle(self, now: float | None = None) -> int:
        now = time.monotonic() if now is None else now
        stale = [
            q.queue_id for q in self.queues.values() if now - q.last_touched > QUEUE_TIMEOUT_SECONDS
        ]
        for queue_id in stale:
            self.delete(queue_id)
        return len(stale)
