"""Serialised message objects, kept between fetches: the hot path of GET /messages.

A 100-message fetch spends most of its time building and serialising the same message objects
again and again. Here the part of each object that depends on the message alone
(`message_core`) is kept as JSON bytes, keyed by the message's version (id, date_sent,
last_edit_time, reaction_version) and apply_markdown: an edit or a move changes
`last_edit_time` and a reaction `reaction_version`, so a changed message is never served from
here, on any worker; `date_sent` keeps apart the messages of two
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

# (id, date_sent, last_edit_time, reaction_version): what changes when the message object does.
Version = tuple[int, float, float | None, int]
# A version and the reader's flags (None: a message of a public history the reader did not
# receive): the light row of `conversation_window.LIGHT_ROW`.
LightRow = tuple[int, float, float | None, int, int | None]
# (sender_id, recipient_id, stream_id, topic) of the message at that version.
Head = tuple[int, int, int | None, str]


class Cached(NamedTuple):
    # `message_core` (with `flags` when keyed by a light row) as `{"id":…,…,`: the start of a
    # JSON object, for the caller to complete.
    core: bytes
    head: Head


# About 1 KB each: bounded to some tens of megabytes for each map.
MAX_ENTRIES = 50_000
# By apply_markdown (HTML or raw content), then by message version.
_entries: dict[bool, dict[Version, Cached]] = {True: {}, False: {}}
# By apply_markdown, then by light row: the core followed by `"flags":[…],`.
_with_flags: dict[bool, dict[LightRow, Cached]] = {True: {}, False: {}}
# Equal heads are one object (a conversation's messages share a handful), so that a fetch can
# tell heads apart by identity: see `messages.messages_fragment`. After this map is cleared, an
# entry stored before and one stored after may hold two equal heads: a fetch then builds their
# reader part twice, the same bytes.
_heads: dict[Head, Head] = {}


def entries(apply_markdown: bool) -> dict[Version, Cached]:
    """The cached message objects, by message version."""
    return _entries[apply_markdown]


def with_flags(apply_markdown: bool) -> dict[LightRow, Cached]:
    """The cached message objects with the reader's flags, by light row."""
    return _with_flags[apply_markdown]


def head_of(row: Any) -> Head:
    """The head of a full message row."""
    return (row["sender_id"], row["recipient_id"], row["stream_id"], row["topic"])


def store(
    apply_markdown: bool, built: dict[Version, tuple[dict[str, Any], Head]]
) -> dict[Version, Cached]:
    """Cache the entries just built (`message_core` dicts and heads, by version)."""
    cache = _entries[apply_markdown]
    if len(cache) + len(built) > MAX_ENTRIES:
        cache.clear()
    if len(_heads) >= MAX_ENTRIES:
        _heads.clear()
    out = {}
    for version, (core, head) in built.items():
        head = _heads.setdefault(head, head)
        out[version] = cache[version] = Cached(orjson.dumps(core)[:-1] + b",", head)
    return out


def store_with_flags(apply_markdown: bool, built: dict[LightRow, Cached]) -> None:
    """Cache the objects with flags just built, by light row."""
    cache = _with_flags[apply_markdown]
    if len(cache) + len(built) > MAX_ENTRIES:
        cache.clear()
    cache.update(built)
