"""Serialised message objects, kept between fetches: the hot path of GET /messages.

A 100-message fetch spends most of its time building and serialising the same message objects
again and again. Here the part of each object that depends on the message alone
(`message_core`) is kept as JSON bytes, keyed by the message's version (id, date_sent,
last_edit_time) and apply_markdown: an edit or a move changes `last_edit_time`, so a changed
message is never served from here, on any worker; `date_sent` keeps apart the messages of two
databases in one process (tests), and a SQLite id reused after the newest message was deleted.
The reader-dependent parts (sender fields, display_recipient, flags, topic_links) are added per
fetch (`messages.messages_fragment`), so renames and personal flags are always current.
"""

from __future__ import annotations

from typing import Any

import orjson

# (id, date_sent, last_edit_time): what changes when the message object does.
Version = tuple[int, float, float | None]

# About 1 KB each: bounded to some tens of megabytes.
MAX_ENTRIES = 50_000
# By apply_markdown (HTML or raw content), then by message version.
_cores: dict[bool, dict[Version, bytes]] = {True: {}, False: {}}


def cores(apply_markdown: bool) -> dict[Version, bytes]:
    """The cached cores (each `message_core` as `{"id":…,…,`: the start of a JSON object, for
    the caller to complete), by message version."""
    return _cores[apply_markdown]


def store(apply_markdown: bool, built: dict[Version, dict[str, Any]]) -> dict[Version, bytes]:
    """Cache the cores just built (`message_core` dicts by version); their serialised starts."""
    cache = _cores[apply_markdown]
    if len(cache) + len(built) > MAX_ENTRIES:
        cache.clear()
    out = {}
    for version, core in built.items():
        out[version] = cache[version] = orjson.dumps(core)[:-1] + b","
    return out
