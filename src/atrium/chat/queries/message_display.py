"""What message objects show from outside the message, kept between fetches.

Besides the message itself, a message object shows its sender's name, email and avatar, the
realm's string id, and `topic_links` made by the realm's linkifiers. These change rarely, and
reading them on every fetch was a measurable share of it (docs/decisions/0001). Triggers (migration
0007) bump the realm's `message_display_version` in the same transaction as any change to them,
whoever makes it (a view, the CLI, another worker); a fetch reads that version in its own
transaction, and uses entries of exactly that version. Entries live in the database's own caches
(`Conn.caches`), so two databases in one process never share them, and only read transactions
fill them (see `Database.caches`).

Under PostgreSQL's read committed, a statement after the version's may see a newer commit; an
entry can then hold data newer than its version, never older, which is what a fresh read gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.markdown import Linkifier, RenderContext, render_topic_links
from atrium.chat.queries.linkifiers import realm_linkifiers
from atrium.chat.queries.users import avatar_url
from atrium.core.bounded_cache import BoundedCache
from atrium.core.db import Conn, InIdList, Prepared

U = schema.user.c
R = schema.realm.c

# What a message object shows of its sender (`sender_fields`) is made of these columns.
SENDER_COLUMNS = (U.id, U.email, U.full_name, U.avatar_source, U.avatar_version, U.realm_id)

_SENDERS = Prepared(sa.select(*SENDER_COLUMNS).where(InIdList(U.id, "ids")))
_REALM = Prepared(
    sa.select(R.message_display_version, R.string_id).where(R.id == sa.bindparam("realm_id"))
)
CACHE_KEY = "message_display"
# What a sender's or a topic's entry costs besides its JSON: key, bytes object and dict slot
# (about 150 bytes measured with tracemalloc, plus the dict's spare slots).
ENTRY_OVERHEAD = 250
DEFAULT_MAX_BYTES = 8 * 1024 * 1024
# The bound of each realm's senders and of the topic links, halves of the display budget.
_max_bytes = [DEFAULT_MAX_BYTES // 2]


def _json_size(_key: object, value: bytes) -> int:
    return len(value) + ENTRY_OVERHEAD


def configure(max_bytes: int) -> None:
    """Bound each realm's senders and the topic links to half of `max_bytes` each."""
    _max_bytes[0] = max_bytes // 2
    _TOPIC_LINKS_JSON.resize(max_bytes // 2)


# `topic_links` as JSON by the realm's linkifiers (as read by the fetch) and the topic: a pure
# function of the two, so an entry is never stale; matching a topic against the linkifiers and
# the URL pattern cost more than the rest of a one-topic window's reader parts.
_TOPIC_LINKS_JSON: BoundedCache[tuple[tuple[Linkifier, ...], str], bytes] = BoundedCache(
    DEFAULT_MAX_BYTES // 2, _json_size
)


def topic_links_json(linkifiers: tuple[Linkifier, ...], topic: str) -> bytes:
    """`topic_links` of a topic, as JSON."""
    key = (linkifiers, topic)
    found = _TOPIC_LINKS_JSON.get(key)
    if found is None:
        links = render_topic_links(topic, RenderContext(linkifiers=linkifiers))
        found = orjson.dumps(links)
        _TOPIC_LINKS_JSON.put(key, found)
    return found


def sender_fields(
    sender: Mapping[str, Any], realm_str: str, *, client_gravatar: bool
) -> dict[str, Any]:
    """The fields of a message object that come from its sender (who may rename themselves)."""
    return {
        "sender_id": sender["id"],
        "sender_full_name": sender["full_name"],
        "sender_email": sender["email"],
        "sender_realm_str": realm_str,
        "avatar_url": avatar_url(sender, client_gravatar),
    }


@dataclass
class RealmDisplay:
    """One realm's display data, valid for one `message_display_version`."""

    realm_id: int
    version: int
    string_id: str
    # `sender_fields` as JSON object members (no braces), by (sender id, client_gravatar).
    senders: BoundedCache[tuple[int, bool], bytes] = field(
        default_factory=lambda: BoundedCache(_max_bytes[0], _json_size)
    )
    linkifiers: tuple[Linkifier, ...] | None = None

    def sender_json(
        self, conn: Conn, ids: Iterable[int], client_gravatar: bool
    ) -> dict[int, bytes]:
        """`sender_fields` of these users as JSON members, by id; the missing ones read once."""
        known = self.senders
        found: dict[int, bytes] = {}
        missing = []
        for user_id in ids:
            part = known.get((user_id, client_gravatar))
            if part is None:
                missing.append(user_id)
            else:
                found[user_id] = part
        if missing:
            read = {
                row["id"]: orjson.dumps(
                    sender_fields(row, self.string_id, client_gravatar=client_gravatar)
                )[1:-1]
                for row in conn.all(_SENDERS, {"ids": conn.id_list(missing)})
            }
            for user_id, part in read.items():
                known.put((user_id, client_gravatar), part)
            found.update(read)
        return found

    def current_linkifiers(self, conn: Conn) -> tuple[Linkifier, ...]:
        if self.linkifiers is None:
            self.linkifiers = tuple(realm_linkifiers(conn, self.realm_id))
        return self.linkifiers


def realm_display(conn: Conn, realm_id: int) -> RealmDisplay:
    """The realm's display data as of this transaction."""
    [(version, string_id)] = conn.tuples(_REALM, {"realm_id": realm_id})
    by_realm: dict[int, RealmDisplay] = conn.caches.setdefault(CACHE_KEY, {})
    found = by_realm.get(realm_id)
    if found is None or found.version != version or found.string_id != string_id:
        found = by_realm[realm_id] = RealmDisplay(realm_id, version, string_id)
    return found
