"""Serialised message objects, kept between fetches: the hot path of GET /messages.

A 100-message fetch spends most of its time building and serialising the same message objects
again and again. Here the part of each object that depends on the message alone
(`message_core`) is kept as JSON bytes, keyed by the message's version (id, date_sent,
last_edit_time) and apply_markdown: an edit or a move changes `last_edit_time`, so a changed
message is never served from here, on any worker; `date_sent` keeps apart the messages of two
databases in one process (tests), and a SQLite id reused after the newest message was deleted.
Beside it is the message's head (sender, recipient, stream, topic), which changes with the same
version, so that a fetch need not read those columns.

A fetch reads light rows, (version, the reader's flags), and looks them up whole: the core with
its `flags` field is kept too, keyed by the light row, so that the lookup is one dict access per
row and the reader's flags need no further work. A message has a handful of flag patterns among
its readers, so this holds a few entries per message. The parts that depend on the sender, the
stream and the realm's linkifiers (sender fields, display_recipient, topic_links) are added per
fetch (`messages.messages_fragment`), so renames and linkifier changes are always current.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from atrium.core.bounded_cache import BoundedCache

# (id, date_sent, last_edit_time): what changes when the message object does.
Version = tuple[int, float, float | None]
# A version and the reader's flags (None: a message of a public history the reader did not
# receive): the light row of `conversation_window.LIGHT_ROW`.
LightRow = tuple[int, float, float | None, int | None]
# (sender_id, recipient_id, stream_id, topic) of the message at that version.
Head = tuple[int, int, int | None, str]


class Cached(NamedTuple):
    # `message_core` (with `flags` when keyed by a light row) as `{"id":…,…,`: the start of a
    # JSON object, for the caller to complete.
    core: bytes
    head: Head


# What an entry costs besides its JSON bytes: its key, the tuple holding it, the bytes object and
# its dict slot: about 255 bytes measured with tracemalloc, plus the dict's spare slots.
ENTRY_OVERHEAD = 330
DEFAULT_MAX_BYTES = 64 * 1024 * 1024


def _entry_size(_key: object, entry: Cached) -> int:
    return len(entry.core) + ENTRY_OVERHEAD


def _new_cache() -> BoundedCache[Any, Cached]:
    return BoundedCache(DEFAULT_MAX_BYTES // 4, _entry_size)


# By apply_markdown (HTML or raw content), then by message version.
_entries: dict[bool, BoundedCache[Version, Cached]] = {True: _new_cache(), False: _new_cache()}
# By apply_markdown, then by light row: the core followed by `"flags":[…],`.
_with_flags: dict[bool, BoundedCache[LightRow, Cached]] = {True: _new_cache(), False: _new_cache()}
# Equal heads are one object (a conversation's messages share a handful), so that a fetch can
# tell heads apart by identity: see `messages.messages_fragment`. It starts over when the cache
# of versions does, so it holds no more heads than that cache. After that, an entry stored before
# and one stored after may hold two equal heads: a fetch then builds their reader part twice, the
# same bytes.
_heads: dict[Head, Head] = {}
_heads_generation = [0, 0]  # the generations of _entries[False] and [True] _heads belongs to


def configure(max_bytes: int) -> None:
    """Bound the four maps (objects and objects with flags, HTML and raw) to `max_bytes` in all,
    a quarter each."""
    for apply_markdown in (False, True):
        _entries[apply_markdown].resize(max_bytes // 4)
        _with_flags[apply_markdown].resize(max_bytes // 4)


def entries(apply_markdown: bool) -> BoundedCache[Version, Cached]:
    """The cached message objects, by message version."""
    return _entries[apply_markdown]


def with_flags(apply_markdown: bool) -> BoundedCache[LightRow, Cached]:
    """The cached message objects with the reader's flags, by light row: a hot path reads
    `.recent` directly and asks `.get` for what that misses."""
    return _with_flags[apply_markdown]


def head_of(row: Any) -> Head:
    """The head of a full message row."""
    return (row["sender_id"], row["recipient_id"], row["stream_id"], row["topic"])


def store(
    apply_markdown: bool, built: dict[Version, tuple[dict[str, Any], Head]]
) -> dict[Version, Cached]:
    """Cache the entries just built (`message_core` dicts and heads, by version)."""
    cache = _entries[apply_markdown]
    generations = [_entries[False].generation, _entries[True].generation]
    if generations != _heads_generation:
        _heads.clear()
        _heads_generation[:] = generations
    out = {}
    for version, (core, head) in built.items():
        head = _heads.setdefault(head, head)
        out[version] = entry = Cached(orjson.dumps(core)[:-1] + b",", head)
        cache.put(version, entry)
    return out


def store_with_flags(apply_markdown: bool, built: dict[LightRow, Cached]) -> None:
    """Cache the objects with flags just built, by light row."""
    cache = _with_flags[apply_markdown]
    for row, entry in built.items():
        cache.put(row, entry)
