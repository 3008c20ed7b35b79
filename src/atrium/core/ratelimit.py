"""Fixed-window rate limiting, in-process (embedded mode) or in Redis (shared by every worker).

A limit is `count` hits per `window` seconds for a key such as `api:user:42`. `hit()` records one
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
        self._windows: dict[str, tuple[int, int]] = {}  # key -> (window index, count)

    async def hit(self, key: str, limit: int, window: int) -> Verdict:
        now = time.time()
        index = int(now // window)
        current, count = self._windows.get(key, (index, 0))
        if current != index:
            count = 0
            if len(self._windows) > 100_000:  # drop stale windows now and then
                self._windows = {k: v for k, v in self._windows.items() if v[0] >= index}
        count += 1
        self._windows[key] = (index, count)
        reset_at = float((index + 1) * window)
        return Verdict(count <= limit, limit, max(0, limit - count), reset_at)

    async def peek(self, key: str, limit: int, window: int) -> Verdict:
        index = int(time.time() // window)
        current, count = self._windows.get(key, (index, 0))
        if current != index:
            count = 0
        reset_at = float((index + 1) * window)
        return Verdict(count < limit, limit, max(0, limit - count), reset_at)


class RedisRateLimiter(RateLimiter):
    def __init__(self, url: str, namespace: str = "atrium") -> None:
        self.namespace = namespace
        import redis.asyncio as redis

        self._redis: Any = redis.Redis.from_url(url)

    async def hit(self, key: str, limit: int, window: int) -> Verdict:
        now = time.time()
        index = int(now // window)
        redis_key = f"{self.namespace}:rl:{key}:{index}"
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.incr(redis_key)
            pipe.expire(redis_key, window + 1)
            count, _ = await pipe.execute()
        reset_at = float((index + 1) * window)
        return Verdict(int(count) <= limit, limit, max(0, limit - int(count)), reset_at)

    async def peek(self, key: str, limit: int, window: int) -> Verdict:
        index = int(time.time() // window)
        count = int(await self._redis.get(f"{self.namespace}:rl:{key}:{index}") or 0)
        reset_at = float((index + 1) * window)
        return Verdict(count < limit, limit, max(0, limit - count), reset_at)

    async def close(self) -> None:
        await self._redis.aclose()


def rate_limiter(redis_url: str | None, namespace: str = "atrium") -> RateLimiter:
    return RedisRateLimiter(redis_url, namespace) if redis_url else MemoryRateLimiter()
