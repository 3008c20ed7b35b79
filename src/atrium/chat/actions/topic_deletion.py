"""POST /streams/{id}/delete_topic: an administrator deletes a topic's messages.

Only the messages the administrator could read go (a stream without public history keeps those
they never received), with one `delete_message` event to everyone who had any of them.
"""

from __future__ import annotations

import sqlalchemy as sa

from atrium.chat import schema, search
from atrium.chat.actions.reactions import delete_reactions_of
from atrium.chat.errors import must_be_admin
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.topics import topic_message_ids
from atrium.core.db import Conn

M = schema.message.c
UM = schema.user_message.c
_CHUNK = 500


def delete_topic(conn: Conn, user: User, stream_id: int, topic: str) -> Outcome[None]:
    if not user.is_admin:
        raise must_be_admin()
    stream, _sub = stream_queries.stream_for_reading(conn, user, stream_id, allow_realm_admin=False)
    ids = topic_message_ids(
        conn,
        user.id,
        stream_id,
        topic,
        public_history=bool(stream["history_public_to_subscribers"]),
    )
    if not ids:
        return Outcome(None)
    holders: set[int] = set()
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        holders.update(conn.scalars(sa.select(UM.user_id).where(UM.message_id.in_(chunk))))
        conn.execute(sa.delete(schema.user_message).where(UM.message_id.in_(chunk)))
        delete_reactions_of(conn, chunk)
        search.unindex_messages(conn, chunk)
        conn.execute(sa.delete(schema.message).where(M.id.in_(chunk)))
    first = conn.scalar(sa.select(sa.func.min(M.id)).where(M.stream_id == stream_id))
    conn.execute(
        sa.update(schema.stream)
        .where(schema.stream.c.id == stream_id)
        .values(first_message_id=first)
    )
    event = {
        "type": "delete_message",
        "message_ids": ids,
        "message_type": "stream",
        "stream_id": stream_id,
        "topic": topic,
    }
    return Outcome(None, [Notice(event, sorted(holders))])
