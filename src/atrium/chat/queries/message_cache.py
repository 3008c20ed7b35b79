"""Everything GET /messages keeps between fetches, in one place and under one lifetime rule.

The rule: an entry is keyed by the version of everything it was built from, so no entry is ever
invalidated; a change makes a new key, and the old entry is dropped when its byte bound needs the
room (least recently used first). The caches belong to one database (`Database.caches`), so two
databases in one process never share them, and only read transactions reach them (a write's
connection has caches of its own, thrown away with it).

What is kept, and the version each is keyed by:
- `objects`: the part of a message object that depends on the message alone (`message_core`) as
  JSON bytes, by (id, date_sent, last_edit_time, reaction_version) and apply_markdown. An edit or
  a move changes `last_edit_time`, a reaction `reaction_version`; `date_sent` keeps apart an id
  SQLite reuses after the newest message was deleted. Beside it is the message's head (sender,
  recipient, stream, topic), which changes with the same version.
- `with_flags`: the same core followed by the reader's `flags`, by light row (that version plus
  the flags), so that a fetch does one dict lookup per row. A message has a handful of flag
  patterns among its readers, so this holds a few entries per message.
- `realms`: what message objects show from outside the message (senders' fields, the realm's
  string id and linkifiers), by realm, valid for one `realm.message_display_version`. Triggers
  (migration 0007) bump it in the same transaction as any change to those, whoever makes it; a
  fetch reads it in its own transaction and uses entries of exactly that version. Under
  PostgreSQL's read committed an entry can hold data newer than its version, never older.
- `topic_links`: `topic_links` JSON by (the realm's linkifiers, topic): a pure function of its
  key.

The parts of an object that depend on the stream (display_recipient) are read per fetch.
Why these caches exist, with figures: docs/decisions/0001-hot-path-measurements.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

from atrium.chat.markdown import Linkifier
from atrium.core.bounded_cache import BoundedCache
from atrium.core.db import Conn

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


# What a message entry costs besides its JSON bytes: its key, the tuple holding it, the bytes
# object and its dict slot: about 255 bytes measured with tracemalloc, plus the dict's spare slots.
ENTRY_OVERHEAD = 330
# What a sender's or a topic's entry costs besides its JSON: key, bytes object and dict slot
# (about 150 bytes measured with tracemalloc, plus the dict's spare slots).
DISPLAY_ENTRY_OVERHEAD = 250
DEFAULT_MESSAGES_BYTES = 64 * 1024 * 1024
DEFAULT_DISPLAY_BYTES = 8 * 1024 * 1024
CACHE_KEY = "message_cache"


def _entry_size(_key: object, entry: Cached) -> int:
    return len(entry.core) + ENTRY_OVERHEAD


def _json_size(_key: object, value: bytes) -> int:
    return len(value) + DISPLAY_ENTRY_OVERHEAD


@dataclass
class RealmDisplay:
    """One realm's display data, valid for one `message_display_version`."""

    realm_id: int
    version: int
    string_id: str
    # `sender_fields` as JSON object members (no braces), by (sender id, client_gravatar).
    senders: BoundedCache[tuple[int, bool], bytes]
    linkifiers: tuple[Linkifier, ...] | None = None


@dataclass
class MessageCaches:
    """The caches of one database. `messages_bytes` bounds the four maps of message objects (with
    and without flags, HTML and raw content), a quarter each; `display_bytes` bounds each realm's
    senders and the topic links, half each."""

    messages_bytes: int = DEFAULT_MESSAGES_BYTES
    display_bytes: int = DEFAULT_DISPLAY_BYTES
    # By apply_markdown, then by message version.
    objects: dict[bool, BoundedCache[Version, Cached]] = field(init=False)
    # By apply_markdown, then by light row: the core followed by `"flags":[…],`. A hot path reads
    # `.recent` directly and asks `.get` for what that misses.
    with_flags: dict[bool, BoundedCache[LightRow, Cached]] = field(init=False)
    realms: dict[int, RealmDisplay] = field(init=False, default_factory=dict)
    topic_links: BoundedCache[tuple[tuple[Linkifier, ...], str], bytes] = field(init=False)

    def __post_init__(self) -> None:
        quarter = self.messages_bytes // 4
        self.objects = {md: BoundedCache(quarter, _entry_size) for md in (False, True)}
        self.with_flags = {md: BoundedCache(quarter, _entry_size) for md in (False, True)}
        self.topic_links = BoundedCache(self.display_bytes // 2, _json_size)
        # Equal heads are one object (a conversation's messages share a handful), so that a fetch
        # can tell heads apart by identity: see `messages.messages_fragment`. It starts over when
        # the objects' caches do, so it holds no more heads than they do. After that, an entry
        # stored before and one stored after may hold two equal heads: a fetch then builds their
        # reader part twice, the same bytes.
        self._heads: dict[Head, Head] = {}
        self._heads_generation = [0, 0]  # the generations of objects[False] and [True]

    def store(
        self, apply_markdown: bool, built: dict[Version, tuple[dict[str, Any], Head]]
    ) -> dict[Version, Cached]:
        """Cache the objects just built (`message_core` dicts and heads, by version)."""
        cache = self.objects[apply_markdown]
        generations = [self.objects[False].generation, self.objects[True].generation]
        if generations != self._heads_generation:
            self._heads.clear()
            self._heads_generation[:] = generations
        heads = self._heads
        out = {}
        for version, (core, head) in built.items():
            head = heads.setdefault(head, head)
            out[version] = entry = Cached(orjson.dumps(core)[:-1] + b",", head)
            cache.put(version, entry)
        return out

    def store_with_flags(self, apply_markdown: bool, built: dict[LightRow, Cached]) -> None:
        """Cache the objects with flags just built, by light row."""
        cache = self.with_flags[apply_markdown]
        for row, entry in built.items():
            cache.put(row, entry)

    def realm(self, realm_id: int, version: int, string_id: str) -> RealmDisplay:
        """The realm's display entries for this `message_display_version`, new if it changed."""
        found = self.realms.get(realm_id)
        if found is None or found.version != version or found.string_id != string_id:
            senders: BoundedCache[tuple[int, bool], bytes] = BoundedCache(
                self.display_bytes // 2, _json_size
            )
            found = self.realms[realm_id] = RealmDisplay(realm_id, version, string_id, senders)
        return found


def install(caches: dict[str, Any], messages_bytes: int, display_bytes: int) -> MessageCaches:
    """Give a database (its `Database.caches`) message caches of these bounds."""
    made = caches[CACHE_KEY] = MessageCaches(messages_bytes, display_bytes)
    return made


def of(conn: Conn) -> MessageCaches:
    """The caches of the connection's database (default bounds if none were installed)."""
    found: MessageCaches | None = conn.caches.get(CACHE_KEY)
    if found is None:
        found = conn.caches.setdefault(CACHE_KEY, MessageCaches())
    return found


def head_of(row: Any) -> Head:
    """The head of a full message row."""
    return (row["sender_id"], row["recipient_id"], row["stream_id"], row["topic"])
