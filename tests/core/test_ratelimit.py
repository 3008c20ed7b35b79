"""The rate limiter, in-process and on Redis (shared by scale-out workers)."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import AsyncIterator

import pytest
import redis

from atrium.core.ratelimit import MemoryRateLimiter, RateLimiter, RedisRateLimiter

pytestmark = pytest.mark.anyio
REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture(params=["memory", "redis"])
async def limiter(request: pytest.FixtureRequest) -> AsyncIterator[RateLimiter]:
    if request.param == "memory":
        yield MemoryRateLimiter()
        return
    try:
        redis.Redis.from_url(REDIS_URL).ping()
    except redis.RedisError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis is required in CI: {exc}")
        pytest.skip(f"Redis not reachable: {exc}")
    shared = RedisRateLimiter(REDIS_URL)
    yield shared
    await shared.close()


async def test_allows_up_to_the_limit_then_refuses(limiter: RateLimiter) -> None:
    key = f"test:{uuid.uuid4()}"
    verdicts = [await limiter.hit(key, 3, 60) for _ in range(4)]
    assert [v.allowed for v in verdicts] == [True, True, True, False]
    assert [v.remaining for v in verdicts] == [2, 1, 0, 0]
    assert 0 < verdicts[-1].retry_after <= 60
    assert verdicts[-1].headers()["X-RateLimit-Limit"] == "3"
    assert int(verdicts[-1].headers()["X-RateLimit-Reset"]) >= int(time.time())
    # Another key has its own window.
    assert (await limiter.hit(f"test:{uuid.uuid4()}", 3, 60)).allowed


async def test_peek_tells_the_next_verdict_without_counting(limiter: RateLimiter) -> None:
    key = f"test:{uuid.uuid4()}"
    for _ in range(3):
        assert (await limiter.peek(key, 2, 60)).allowed
    await limiter.hit(key, 2, 60)
    assert (await limiter.peek(key, 2, 60)).allowed
    await limiter.hit(key, 2, 60)
    refused = await limiter.peek(key, 2, 60)
    assert not refused.allowed and 0 < refused.retry_after <= 60


async def test_two_redis_limiters_share_counts() -> None:
    try:
        redis.Redis.from_url(REDIS_URL).ping()
    except redis.RedisError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis is required in CI: {exc}")
        pytest.skip(f"Redis not reachable: {exc}")
    worker_a, worker_b = RedisRateLimiter(REDIS_URL), RedisRateLimiter(REDIS_URL)
    key = f"test:{uuid.uuid4()}"
    try:
        assert (await worker_a.hit(key, 2, 60)).allowed
        assert (await worker_b.hit(key, 2, 60)).allowed
        assert not (await worker_a.hit(key, 2, 60)).allowed
    finally:
        await worker_a.close()
        await worker_b.close()


async def test_a_window_starts_at_the_first_hit(limiter: RateLimiter) -> None:
    """A clock boundary does not reset a count: the window is the key's own, as MediaWiki's
    throttles keep it, so five guesses just before a minute turns are still five after it."""
    key = f"test:{uuid.uuid4()}"
    first = await limiter.hit(key, 2, 300)
    assert 299 < first.retry_after <= 300
    await limiter.hit(key, 2, 300)
    assert not (await limiter.peek(key, 2, 300)).allowed


async def test_memory_windows_do_not_reset_on_a_clock_boundary(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [299.5]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    limiter = MemoryRateLimiter()
    assert (await limiter.hit("k", 1, 300)).allowed
    clock[0] = 300.5  # past the epoch-aligned boundary, inside the key's own window
    assert not (await limiter.hit("k", 1, 300)).allowed
    clock[0] = 600.0  # the key's window has ended
    assert (await limiter.hit("k", 1, 300)).allowed
