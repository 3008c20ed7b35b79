"""What message objects show from outside the message: the sender's name, email and avatar, the
realm's string id, and `topic_links` made by the realm's linkifiers, built through the caches of
`message_cache` (which states when an entry is valid)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.markdown import Linkifier, RenderContext, render_topic_links
from atrium.chat.queries.linkifiers import realm_linkifiers
from atrium.chat.queries.message_cache import MessageCaches, RealmDisplay
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


def topic_links_json(caches: MessageCaches, linkifiers: tuple[Linkifier, ...], topic: str) -> bytes:
    """`topic_links` of a topic, as JSON: matching a topic against the linkifiers and the URL
    pattern cost more than the rest of a one-topic window's reader parts, so it is kept."""
    key = (linkifiers, topic)
    found = caches.topic_links.get(key)
    if found is None:
        links = render_topic_links(topic, RenderContext(linkifiers=linkifiers))
        found = orjson.dumps(links)
        caches.topic_links.put(key, found)
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


def sender_json(
    conn: Conn, realm: RealmDisplay, ids: Iterable[int], client_gravatar: bool
) -> dict[int, bytes]:
    """`sender_fields` of these users as JSON members, by id; the missing ones read once."""
    known = realm.senders
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
                sender_fields(row, realm.string_id, client_gravatar=client_gravatar)
            )[1:-1]
            for row in conn.all(_SENDERS, {"ids": conn.id_list(missing)})
        }
        for user_id, part in read.items():
            known.put((user_id, client_gravatar), part)
        found.update(read)
    return found


def current_linkifiers(conn: Conn, realm: RealmDisplay) -> tuple[Linkifier, ...]:
    if realm.linkifiers is None:
        realm.linkifiers = tuple(realm_linkifiers(conn, realm.realm_id))
    return realm.linkifiers


def realm_display(conn: Conn, caches: MessageCaches, realm_id: int) -> RealmDisplay:
    """The realm's display data as of this transaction."""
    [(version, string_id)] = conn.tuples(_REALM, {"realm_id": realm_id})
    return caches.realm(realm_id, version, string_id)
