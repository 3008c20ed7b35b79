"""Notices (an event and the users it concerns), and the event queues that deliver them.

Two implementations of one contract:

- `MemoryEventQueues` (embedded mode): queues live in this process; a long-poll waits on an
  asyncio.Event.
- `RedisEventQueues` (scale-out mode): every queue is a Redis Stream whose entry ids are the event
  ids, so any worker can append to, long-poll (XREAD BLOCK) or acknowledge (XTRIM MINID) any queue;
  a queue's options live in a hash whose expiry is the queue's idle timeout.

Per-queue shaping (apply_markdown, client_gravatar, a client's own `local_id`) happens at delivery,
in `shape_event`, so that publishing is the same for every queue.
"""

from __future__ import annotations

import abc
import asyncio
import itertools
import time
import uuid
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import orjson

from atrium.chat.events.message_filter import message_matches

T = TypeVar("T")

# A queue nobody polled for this long is dropped (Zulip's DEFAULT_EVENT_QUEUE_TIMEOUT_SECS).
QUEUE_TIMEOUT_SECONDS = 600
# The default bounds of undelivered events, per queue and for all queues of a process, in bytes
# as `event_size` estimates them (see `CacheLimits` in the settings).
MAX_QUEUE_BYTES = 4 * 1024 * 1024
MAX_TOTAL_BYTES = 64 * 1024 * 1024
# The most queues one user holds at once (tabs, devices, bots' own clients). Every event for the
# user is copied into each of them, so without a bound one member could multiply the work of
# every publish; registering one more drops the user's least recently polled queue, whose client
# registers again on its next poll, as after any collected queue.
MAX_QUEUES_PER_USER = 50


def event_size(event: Mapping[str, Any]) -> int:
    """The memory an event holds in a queue, estimated: as Python objects it measured 3.5 times
    its JSON length, and queues delivering one event share its strings."""
    return 3 * len(orjson.dumps(event)) + 300


@dataclass(frozen=True)
class Notice:
    """One event and the ids of the users whose queues receive it.

    `for_queue` adds fields to the copy delivered to one queue (Zulip's `local_message_id`).
    """

    event: dict[str, Any]
    user_ids: Sequence[int]
    for_queue: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass
class Outcome(Generic[T]):
    """What an action's transaction returns: its value and the events it caused."""

    value: T
    notices: list[Notice] = field(default_factory=list)
    # Missed-message mails held because their recipient looked present (message id -> user
    # ids): after the commit, those whose recipient holds no queue are released.
    held_mail: dict[int, frozenset[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class QueueOptions:
    event_types: frozenset[str] | None = None  # None: every type
    apply_markdown: bool = False
    client_gravatar: bool = False
    # [operator, operand, negated] terms; a narrowed queue gets only matching message events.
    narrow: tuple[tuple[Any, ...], ...] = ()

    def wants(self, event: dict[str, Any]) -> bool:
        if self.event_types is not None and event["type"] not in self.event_types:
            return False
        if (
            event["type"] == "muted_topics"
            and self.event_types
            and "user_topic" in self.event_types
        ):
            return False  # Zulip sends the legacy event only to queues not asking for user_topic
        if self.narrow and event["type"] == "message":
            return message_matches(self.narrow, event)
        return True

    def accepts_messages(self) -> bool:
        """Whether new messages reach this queue's client (Zulip's `accepts_messages`): a
        client that holds one is on the chat and sees them arrive."""
        return self.event_types is None or "message" in self.event_types

    def to_json(self) -> bytes:
        return orjson.dumps(
            {
                "event_types": None if self.event_types is None else sorted(self.event_types),
                "apply_markdown": self.apply_markdown,
                "client_gravatar": self.client_gravatar,
                "narrow": self.narrow,
            }
        )

    @classmethod
    def from_json(cls, raw: bytes) -> QueueOptions:
        data = orjson.loads(raw)
        types = data["event_types"]
        return cls(
            None if types is None else frozenset(types),
            data["apply_markdown"],
            data["client_gravatar"],
            tuple(tuple(term) for term in data.get("narrow", ())),
        )


def shape_event(event: Mapping[str, Any], options: QueueOptions) -> dict[str, Any]:
    """The event as this queue's client asked to see it."""
    out = dict(event)
    if out.get("type") == "message":
        message = dict(out["message"])
        raw = message.pop("raw_content", None)
        gravatar = message.pop("avatar_is_gravatar", False)
        if not options.apply_markdown and raw is not None:
            message["content"] = raw
            message["content_type"] = "text/x-markdown"
        if options.client_gravatar and gravatar:
            message["avatar_url"] = None
        out["message"] = message
    return out


class EventQueues(abc.ABC):
    """Register, publish, long-poll, acknowledge and delete; the same in both modes."""

    @abc.abstractmethod
    async def register(self, user_id: int, options: QueueOptions) -> str: ...

    @abc.abstractmethod
    async def publish(self, notices: Iterable[Notice]) -> None: ...

    @abc.abstractmethod
    async def get_events(
        self, queue_id: str, user_id: int, last_event_id: int | None, timeout: float
    ) -> list[dict[str, Any]] | None:
        """Events after `last_event_id` (dropping the acknowledged ones), waiting up to
        `timeout` seconds for the first; a heartbeat when none came; None for a bad queue."""

    @abc.abstractmethod
    async def delete(self, queue_id: str, user_id: int) -> bool: ...

    @abc.abstractmethod
    async def listening(self, user_ids: Iterable[int]) -> set[int]:
        """Those of `user_ids` holding a live queue that accepts messages (Zulip's opposite of
        `receiver_is_off_zulip`)."""

    async def expire_idle(self) -> int:
        return 0

    async def close(self) -> None:
        return None


@dataclass
class _MemoryQueue:
    queue_id: str
    user_id: int
    options: QueueOptions
    last_touched: float = field(default_factory=time.monotonic)
    events: deque[dict[str, Any]] = field(default_factory=deque)
    # `event_size` of each event in `events`, and their sum.
    sizes: deque[int] = field(default_factory=deque)
    bytes: int = 0
    next_id: itertools.count[int] = field(default_factory=itertools.count)
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)

    def push(self, event: dict[str, Any], size: int) -> None:
        self.events.append({**event, "id": next(self.next_id)})
        self.sizes.append(size)
        self.bytes += size
        self.wakeup.set()

    def acknowledge(self, last_event_id: int) -> int:
        """Drop the events the client has seen; the bytes freed."""
        freed = 0
        while self.events and self.events[0]["id"] <= last_event_id:
            self.events.popleft()
            freed += self.sizes.popleft()
        self.bytes -= freed
        return freed


class MemoryEventQueues(EventQueues):
    """Queues in this process, their undelivered events bounded in bytes.

    Zulip bounds a queue only by time (it is garbage-collected after 10 idle minutes); a client
    that registers and stops polling could meanwhile hold any number of events here. A queue whose
    backlog passes `max_queue_bytes` is dropped, as if collected: its client's next poll gets
    BAD_EVENT_QUEUE_ID and it registers again, which is how Zulip clients recover from a collected
    queue. Past `max_total_bytes` for all queues together, the least recently polled go first.
    """

    def __init__(
        self,
        max_queue_bytes: int = MAX_QUEUE_BYTES,
        max_total_bytes: int = MAX_TOTAL_BYTES,
        max_queues_per_user: int = MAX_QUEUES_PER_USER,
    ) -> None:
        self.queues: dict[str, _MemoryQueue] = {}
        self.by_user: dict[int, set[str]] = {}
        self.max_queue_bytes = max_queue_bytes
        self.max_total_bytes = max_total_bytes
        self.max_queues_per_user = max_queues_per_user
        self.total_bytes = 0

    async def register(self, user_id: int, options: QueueOptions) -> str:
        owned = self.by_user.setdefault(user_id, set())
        while owned and len(owned) >= self.max_queues_per_user:
            self._drop(min((self.queues[q] for q in owned), key=lambda q: q.last_touched))
        queue = _MemoryQueue(str(uuid.uuid4()), user_id, options)
        self.queues[queue.queue_id] = queue
        owned.add(queue.queue_id)
        return queue.queue_id

    def _queue(self, queue_id: str, user_id: int) -> _MemoryQueue | None:
        queue = self.queues.get(queue_id)
        if queue is None or queue.user_id != user_id:
            return None
        queue.last_touched = time.monotonic()
        return queue

    async def publish(self, notices: Iterable[Notice]) -> None:
        for notice in notices:
            size = 0  # measured once per event, when a queue wants it
            overflowing = []
            for user_id in notice.user_ids:
                for queue_id in self.by_user.get(user_id, ()):
                    queue = self.queues[queue_id]
                    if queue.options.wants(notice.event):
                        event = {**notice.event, **notice.for_queue.get(queue_id, {})}
                        size = size or event_size(notice.event)
                        queue.push(shape_event(event, queue.options), size)
                        self.total_bytes += size
                        if queue.bytes > self.max_queue_bytes:
                            overflowing.append(queue)
            for queue in overflowing:
                self._drop(queue)
            if self.total_bytes > self.max_total_bytes:
                for queue in sorted(self.queues.values(), key=lambda q: q.last_touched):
                    self._drop(queue)
                    if self.total_bytes <= self.max_total_bytes:
                        break

    def _drop(self, queue: _MemoryQueue) -> None:
        """Forget a queue; a poll waiting on it returns what it holds, and the next one finds
        no queue."""
        if self.queues.pop(queue.queue_id, None) is None:
            return
        self.by_user.get(queue.user_id, set()).discard(queue.queue_id)
        self.total_bytes -= queue.bytes
        queue.wakeup.set()

    async def get_events(
        self, queue_id: str, user_id: int, last_event_id: int | None, timeout: float
    ) -> list[dict[str, Any]] | None:
        queue = self._queue(queue_id, user_id)
        if queue is None:
            return None
        if last_event_id is not None:
            self.total_bytes -= queue.acknowledge(last_event_id)
        if not queue.events and timeout > 0:
            queue.wakeup.clear()
            try:
                await asyncio.wait_for(queue.wakeup.wait(), timeout)
            except TimeoutError:
                if queue.queue_id in self.queues:
                    heartbeat = {"type": "heartbeat"}
                    queue.push(heartbeat, event_size(heartbeat))
                    self.total_bytes += queue.sizes[-1]
            queue.last_touched = time.monotonic()
        return list(queue.events)

    async def delete(self, queue_id: str, user_id: int) -> bool:
        queue = self._queue(queue_id, user_id)
        if queue is None:
            return False
        self._drop(queue)
        return True

    async def listening(self, user_ids: Iterable[int]) -> set[int]:
        now = time.monotonic()
        found: set[int] = set()
        for user_id in user_ids:
            for queue_id in self.by_user.get(user_id, ()):
                queue = self.queues[queue_id]
                # A queue past its timeout is as good as collected, even before `expire_idle`.
                if (
                    queue.options.accepts_messages()
                    and now - queue.last_touched <= QUEUE_TIMEOUT_SECONDS
                ):
                    found.add(user_id)
                    break
        return found

    async def expire_idle(self) -> int:
        now = time.monotonic()
        stale = [q for q in self.queues.values() if now - q.last_touched > QUEUE_TIMEOUT_SECONDS]
        for queue in stale:
            await self.delete(queue.queue_id, queue.user_id)
        return len(stale)


class RedisEventQueues(EventQueues):
    """Queues in Redis, shared by every worker of a scale-out deployment.

    Each queue's undelivered events are bounded as in `MemoryEventQueues`: its hash counts the
    JSON bytes of its stream, and a queue whose backlog passes `max_queue_bytes` is deleted, so
    its client registers again. The total is then bounded by the queue count, which the idle
    timeout bounds, and by the Redis server's own `maxmemory`.
    """

    def __init__(
        self,
        url: str,
        namespace: str = "atrium",
        max_queue_bytes: int = MAX_QUEUE_BYTES,
        max_queues_per_user: int = MAX_QUEUES_PER_USER,
    ) -> None:
        # One deployment's keys, apart from any other sharing the Redis server.
        self.prefix = f"{namespace}:events"
        self.max_queue_bytes = max_queue_bytes
        self.max_queues_per_user = max_queues_per_user
        import redis.asyncio as redis

        self._redis: Any = redis.Redis.from_url(url)
        # Options of queues this worker has seen; a queue's options never change.
        self._options: dict[str, QueueOptions] = {}

    def _keys(self, queue_id: str) -> tuple[str, str]:
        return f"{self.prefix}:q:{queue_id}", f"{self.prefix}:meta:{queue_id}"

    def _user_key(self, user_id: int) -> str:
        return f"{self.prefix}:user:{user_id}"

    async def _make_room(self, user_id: int) -> None:
        """Drop the user's least recently polled queues (the shortest time left to live, as a
        poll renews it) until one more fits; expired queues are forgotten on the way."""
        owned = [q.decode() for q in await self._redis.smembers(self._user_key(user_id))]
        if len(owned) < self.max_queues_per_user:
            return
        async with self._redis.pipeline(transaction=False) as pipe:
            for queue_id in owned:
                pipe.pttl(self._keys(queue_id)[1])
            ttls = await pipe.execute()
        live = sorted((int(ttl), q) for ttl, q in zip(ttls, owned, strict=True) if int(ttl) >= 0)
        expired = [q for ttl, q in zip(ttls, owned, strict=True) if int(ttl) < 0]
        if expired:
            await self._redis.srem(self._user_key(user_id), *expired)
        for _ttl, queue_id in live[: max(0, len(live) - self.max_queues_per_user + 1)]:
            await self._drop(queue_id)

    async def register(self, user_id: int, options: QueueOptions) -> str:
        await self._make_room(user_id)
        queue_id = str(uuid.uuid4())
        _stream, meta = self._keys(queue_id)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(meta, mapping={"user_id": user_id, "options": options.to_json(), "next": 0})
            pipe.expire(meta, QUEUE_TIMEOUT_SECONDS)
            pipe.sadd(self._user_key(user_id), queue_id)
            await pipe.execute()
        self._options[queue_id] = options
        return queue_id

    async def _touch(self, queue_id: str, user_id: int) -> QueueOptions | None:
        stream, meta = self._keys(queue_id)
        owner, options = await self._redis.hmget(meta, "user_id", "options")
        if owner is None or int(owner) != user_id:
            return None
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.expire(meta, QUEUE_TIMEOUT_SECONDS)
            pipe.expire(stream, QUEUE_TIMEOUT_SECONDS)
            await pipe.execute()
        return QueueOptions.from_json(options)

    async def _append(self, queue_id: str, event: dict[str, Any]) -> bool:
        stream, meta = self._keys(queue_id)
        if not await self._redis.exists(meta):
            return False
        event_id = int(await self._redis.hincrby(meta, "next", 1)) - 1
        # Stream ids must be > 0-0, so event n is stored as entry (n+1)-0.
        body = orjson.dumps({**event, "id": event_id})
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.xadd(stream, {"e": body}, id=f"{event_id + 1}-0")
            pipe.expire(stream, QUEUE_TIMEOUT_SECONDS)
            pipe.hincrby(meta, "bytes", len(body))
            _added, _expiring, backlog = await pipe.execute()
        if int(backlog) > self.max_queue_bytes:
            await self._drop(queue_id)
            return False
        return True

    async def _drop(self, queue_id: str) -> None:
        stream, meta = self._keys(queue_id)
        owner = await self._redis.hget(meta, "user_id")
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(stream, meta)
            if owner is not None:
                pipe.srem(self._user_key(int(owner)), queue_id)
            await pipe.execute()
        self._options.pop(queue_id, None)

    async def _acknowledge(self, queue_id: str, last_event_id: int) -> None:
        """Trim what the client has seen and take its bytes off the backlog."""
        stream, meta = self._keys(queue_id)
        seen = await self._redis.xrange(stream, max=f"{last_event_id + 1}-0")
        if not seen:
            return
        freed = sum(len(fields[b"e"]) for _entry_id, fields in seen)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.xtrim(stream, minid=f"{last_event_id + 2}-0")
            pipe.hincrby(meta, "bytes", -freed)
            await pipe.execute()

    async def publish(self, notices: Iterable[Notice]) -> None:
        for notice in notices:
            for user_id in notice.user_ids:
                queue_ids = [
                    q.decode() for q in await self._redis.smembers(self._user_key(user_id))
                ]
                for queue_id in queue_ids:
                    options = self._options.get(queue_id)
                    if options is None:
                        raw = await self._redis.hget(self._keys(queue_id)[1], "options")
                        if raw is None:  # expired: forget it
                            await self._redis.srem(self._user_key(user_id), queue_id)
                            continue
                        options = self._options[queue_id] = QueueOptions.from_json(raw)
                    if options.wants(notice.event):
                        event = {**notice.event, **notice.for_queue.get(queue_id, {})}
                        await self._append(queue_id, shape_event(event, options))

    async def get_events(
        self, queue_id: str, user_id: int, last_event_id: int | None, timeout: float
    ) -> list[dict[str, Any]] | None:
        if await self._touch(queue_id, user_id) is None:
            return None
        stream, _meta = self._keys(queue_id)
        after = -1 if last_event_id is None else last_event_id
        if last_event_id is not None:
            await self._acknowledge(queue_id, last_event_id)
        entries = await self._redis.xrange(stream, min=f"{after + 2}-0")
        if not entries and timeout > 0:
            found = await self._redis.xread({stream: f"{after + 1}-0"}, block=int(timeout * 1000))
            # A queue dropped while this poll waited answers as missing, like a collected one.
            if not found and not await self._append(queue_id, {"type": "heartbeat"}):
                return None
            entries = await self._redis.xrange(stream, min=f"{after + 2}-0")
        return [orjson.loads(fields[b"e"]) for _entry_id, fields in entries]

    async def delete(self, queue_id: str, user_id: int) -> bool:
        if await self._touch(queue_id, user_id) is None:
            return False
        await self._drop(queue_id)
        return True

    async def listening(self, user_ids: Iterable[int]) -> set[int]:
        users = list(user_ids)
        if not users:
            return set()
        # Two round trips whatever the number of users: their queues, then those queues' options.
        async with self._redis.pipeline(transaction=False) as pipe:
            for user_id in users:
                pipe.smembers(self._user_key(user_id))
            owned = await pipe.execute()
        pairs = [(u, q.decode()) for u, queues in zip(users, owned, strict=True) for q in queues]
        if not pairs:
            return set()
        async with self._redis.pipeline(transaction=False) as pipe:
            for _user_id, queue_id in pairs:
                pipe.hget(self._keys(queue_id)[1], "options")
            options = await pipe.execute()
        # The options hash expires with the queue: a missing one is a collected queue.
        return {
            user_id
            for (user_id, _queue_id), raw in zip(pairs, options, strict=True)
            if raw is not None and QueueOptions.from_json(raw).accepts_messages()
        }

    async def close(self) -> None:
        await self._redis.aclose()


def event_queues(
    redis_url: str | None,
    namespace: str = "atrium",
    *,
    max_queue_bytes: int = MAX_QUEUE_BYTES,
    max_total_bytes: int = MAX_TOTAL_BYTES,
    max_queues_per_user: int = MAX_QUEUES_PER_USER,
) -> EventQueues:
    """Redis queues in the scale-out mode, else queues in this process; both bounded as their
    docstrings say."""
    if redis_url:
        return RedisEventQueues(redis_url, namespace, max_queue_bytes, max_queues_per_user)
    return MemoryEventQueues(max_queue_bytes, max_total_bytes, max_queues_per_user)
