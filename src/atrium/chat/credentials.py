"""A short-lived cache of API key -> user row, so that most requests skip a database read."""

from __future__ import annotations

import time
from typing import Any


class CredentialCache:
    """API key -> the user's row, kept briefly so that most requests skip a database read.

    Any committed change to users or the realm clears it in this process (`ChatRuntime.write`
    sees the `realm_user`/`realm` events); other workers of a scale-out deployment notice a
    deactivation within `TTL_SECONDS`.
    """

    TTL_SECONDS = 5.0
    MAX_ENTRIES = 50_000

    def __init__(self) -> None:
        self._rows: dict[str, tuple[float, Any]] = {}

    def get(self, api_key: str) -> Any:
        entry = self._rows.get(api_key)
        if entry is None or entry[0] < time.monotonic():
            return None
        return entry[1]

    def put(self, api_key: str, row: Any) -> None:
        if len(self._rows) >= self.MAX_ENTRIES:
            self._rows.clear()
        self._rows[api_key] = (time.monotonic() + self.TTL_SECONDS, row)

    def clear(self) -> None:
        self._rows.clear()
