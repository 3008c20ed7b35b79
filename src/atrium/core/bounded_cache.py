"""A map bounded by an estimate of its size in bytes, forgetting the least recently used first.

Caches on hot paths are read with C-level lookups (`map(cache.recent.get, keys)`), which an exact
LRU cannot offer: it reorders an entry on every hit. This one keeps two generations instead.
New entries and entries read from the older generation go into `recent`, a plain dict; once
`recent` holds half the bound, the older generation is dropped whole and `recent` becomes it. An
entry used during a generation therefore survives the next turnover, and what is dropped is what
nobody asked for during a whole generation: the least recently used, to within half the bound.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """At most about `max_bytes` of entries, as `size(key, value)` estimates each."""

    def __init__(self, max_bytes: int, size: Callable[[K, V], int]) -> None:
        self.max_bytes = max_bytes
        self.size = size
        # The current generation: hot paths may read it directly, and must then call `get` for
        # what it misses, which looks in the older generation.
        self.recent: dict[K, V] = {}
        self._older: dict[K, V] = {}
        self._recent_bytes = 0
        self._older_bytes = 0
        # Counts the turnovers, for callers that keep something derived from the entries.
        self.generation = 0

    @property
    def bytes(self) -> int:
        """The estimated size of what is held."""
        return self._recent_bytes + self._older_bytes

    def __len__(self) -> int:
        return len(self.recent) + len(self._older)

    def __contains__(self, key: K) -> bool:
        return key in self.recent or key in self._older

    def get(self, key: K) -> V | None:
        found = self.recent.get(key)
        if found is None:
            found = self._older.pop(key, None)
            if found is not None:
                size = self.size(key, found)
                self._older_bytes -= size
                self._add(key, found, size)
        return found

    def put(self, key: K, value: V) -> None:
        previous = self.recent.get(key)
        if previous is not None:
            self._recent_bytes -= self.size(key, previous)
            del self.recent[key]
        elif key in self._older:
            self._older_bytes -= self.size(key, self._older.pop(key))
        self._add(key, value, self.size(key, value))

    def _add(self, key: K, value: V, size: int) -> None:
        if size > self.max_bytes // 2:
            return  # larger than a generation: it would push out everything else
        if self._recent_bytes + size > self.max_bytes // 2:
            self._older, self._older_bytes = self.recent, self._recent_bytes
            self.recent, self._recent_bytes = {}, 0
            self.generation += 1
        self.recent[key] = value
        self._recent_bytes += size

    def clear(self) -> None:
        self.recent, self._older = {}, {}
        self._recent_bytes = self._older_bytes = 0
        self.generation += 1

    def resize(self, max_bytes: int) -> None:
        """A new bound; the entries go if they may not fit it."""
        if max_bytes < self.max_bytes:
            self.clear()
        self.max_bytes = max_bytes
