"""Rate limiting, in-process (embedded mode) or in Redis (shared by every worker).

A limit is `count` hits per `window` seconds for a key such as `api:user:42`; a key's window
starts at its first hit, as MediaWiki's throttles do, so no clock boundary halves a count. `hit()` records one
request and says whether it is allowed, how many remain, and when the window resets: exactly what
the `X-RateLimit-*` headers and a 429's `Retry-After` need.
"""

from __future__ import annotations

import abc
import math
import time
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    limit: int
    remaining: int
    reset_at: float  # unix time at which the window ends

    @property
    def retry_after(self) -> float:
        return max(0.0, self.reset_at - time.time())

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(math.ceil(self.reset_at)),
        }


class RateLimiter(abc.ABC):
    @abc.abstractmethod
    async def hit(self, key: str, limit: int, window: int) -> Verdict: ...

    @abc.abstractmethod
    async def peek(self, key: str, limit: int, window: int) -> Verdict:
        """The verdict the next hit would get, without recording one: for limits that count
        only some outcomes (failed passwords), checked before the outcome is known."""

    async def close(self) -> None:
        return None


class MemoryRateLimiter(RateLimiter):
    def __init__(self) -> None:
        self._windows: dict[str, tuple[float, int]] = {}  # key -> (window end, count)

    def _current(self, key: str, window: int, now: float) -> tuple[float, int]:
        reset_at, count = self._windows.get(key, (0.0, 0))
        if reset_at <= now:
            return now + window, 0
        return reset_at, count

    async def hit(self, key: str, limit: int, window: int) -> Verdict:
        now = time.time()
        if key not in self._windows and len(self._windows) > 100_000:
            # Drop ended windows now and then, so one-off keys cannot grow the map forever.
            self._windows = {k: v for k, v in self._windows.items() if v[0] > now}
        reset_at, count = self._current(key, window, now)
        count += 1
        self._windows[key] = (reset_at, count)
        return Verdict(count <= limit, limit, max(0, limit - count), reset_at)

    async def peek(self, key: str, limit: int, window: int) -> Verdict:
        reset_at, count = self._current(key, window, time.time())
        return Verdict(count < limit, limit, max(0, limit - count), reset_at)


class RedisRateLimiter(RateLimiter):
    def __init__(self, url: str, namespace: str = "atrium") -> None:
        self.namespace = namespace
        import redis.asyncio as redis

        self._redis: Any = redis.Redis.from_url(url)

    async def hit(self, key: str, limit: int, window: int) -> Verdict:
        redis_key = f"{self.namespace}:rl:{key}"
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(redis_key, 0, ex=window, nx=True)  # the first hit starts the window
            pipe.incr(redis_key)
            pipe.pttl(redis_key)
            _, count, ttl_ms = await pipe.execute()
        reset_at = time.time() + max(0, int(ttl_ms)) / 1000
        return Verdict(int(count) <= limit, limit, max(0, limit - int(count)), reset_at)

    async def peek(self, key: str, limit: int, window: int) -> Verdict:
        redis_key = f"{self.namespace}:rl:{key}"
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.get(redis_key)
            pipe.pttl(redis_key)
            raw, ttl_ms = await pipe.execute()
        count = int(raw or 0)
        reset_at = time.time() + (int(ttl_ms) / 1000 if int(ttl_ms) > 0 else window)
        return Verdict(count < limit, limit, max(0, limit - count), reset_at)

    async def close(self) -> None:
        await self._redis.aclose()


def rate_limiter(redis_url: str | None, namespace: str = "atrium") -> RateLimiter:
    return RedisRateLimiter(redis_url, namespace) if redis_url else MemoryRateLimiter()
