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
from atrium.chat.markdown import Linkifier
from atrium.chat.queries.linkifiers import realm_linkifiers
from atrium.chat.queries.users import avatar_url
from atrium.core.db import Conn, InIdList, Prepared

U = schema.user.c
R = schema.realm.c

# What a message object shows of its sender (`sender_fields`) is made of these columns.
SENDER_COLUMNS = (U.id, U.email, U.full_name, U.avatar_source, U.avatar_version, U.realm_id)

_SENDERS = Prepared(sa.select(*SENDER_COLUMNS).where(InIdList(U.id, "ids")))
_REALM = Prepared(
    sa.select(R.message_display_version, R.string_id).where(R.id == sa.bindparam("realm_id"))
)
# Senders kept per realm (each as client_gravatar asks); past this many, the realm's entry starts
# over.
MAX_SENDERS = 20_000
CACHE_KEY = "message_display"


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
    senders: dict[tuple[int, bool], bytes] = field(default_factory=dict)
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
            if len(known) + len(read) > MAX_SENDERS:
                known.clear()
            known.update({(user_id, client_gravatar): part for user_id, part in read.items()})
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
