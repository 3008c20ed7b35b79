"""The bounded pools that CPU-heavy steps run in: `run` for password hashing and image scaling,
`run_rendering` for rendering (wiki pages, chat messages).

The event loop serves every request of both services, so a step that holds the CPU for tens of
milliseconds must not run on it. argon2 and Pillow release the GIL while they work, so threads are
enough; the limiter keeps a burst of logins or thumbnails from using more than `size` cores and
from queueing unbounded memory (each argon2 hash costs its memory parameter while it runs).

Rendering holds the GIL, so a thread does not make it faster; it keeps one slow rendering from
holding the event loop (the interpreter switches threads every few milliseconds). It has a
limiter of its own, so that renderings queue behind each other rather than behind logins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread

T = TypeVar("T")

_DEFAULT_SIZE = 2
_limiter: anyio.CapacityLimiter | None = None
_render_limiter: anyio.CapacityLimiter | None = None
_size = _DEFAULT_SIZE


def configure(size: int) -> None:
    """Set the pool's size (ATRIUM_WORKER_THREADS); called once when the process starts."""
    global _limiter, _render_limiter, _size
    _size = max(1, size)
    _limiter = None
    _render_limiter = None


def size() -> int:
    return _size


async def run(fn: Callable[..., T], *args: object) -> T:
    """Run `fn(*args)` in the pool and wait for it without holding the event loop."""
    global _limiter
    if _limiter is None:
        _limiter = anyio.CapacityLimiter(_size)
    return await anyio.to_thread.run_sync(fn, *args, limiter=_limiter)


async def run_rendering(fn: Callable[..., T], *args: object) -> T:
    """Run a rendering `fn(*args)` in a thread of the rendering pool."""
    global _render_limiter
    if _render_limiter is None:
        _render_limiter = anyio.CapacityLimiter(_size)
    return await anyio.to_thread.run_sync(fn, *args, limiter=_render_limiter)


def load() -> dict[str, tuple[int, int]]:
    """Per pool (`cpu`, `rendering`): its threads at work and the tasks waiting for one, for the
    metrics."""
    pools = {"cpu": _limiter, "rendering": _render_limiter}
    return {
        name: (0, 0)
        if limiter is None
        else (int(limiter.borrowed_tokens), limiter.statistics().tasks_waiting)
        for name, limiter in pools.items()
    }
