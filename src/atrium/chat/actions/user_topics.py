"""Topic visibility policies: POST /user_topics and the legacy muted_topics endpoint.

A policy is stored per user, stream and topic (case-insensitively); "inherit" deletes it. Each
change tells the user's clients twice, as Zulip 7 does: the legacy `muted_topics` event with the
whole list of muted topics (queues that asked for `user_topic` do not get it), then a
`user_topic` event for the one topic.
"""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.user_topics import INHERIT, MUTED, muted_topic_tuples
from atrium.core.db import Conn

UT = schema.user_topic.c


def set_visibility_policy(
    conn: Conn,
    user: User,
    stream: Any,
    topic: str,
    visibility_policy: int,
    last_updated: float | None = None,
) -> Outcome[None]:
    now = time.time() if last_updated is None else last_updated
    mine = sa.and_(
        UT.user_id == user.id,
        UT.stream_id == stream["id"],
        sa.func.lower(UT.topic_name) == sa.func.lower(sa.literal(topic)),
    )
    existing = conn.scalar(sa.select(UT.id).where(mine))
    if visibility_policy == INHERIT:
        conn.execute(sa.delete(schema.user_topic).where(mine))
    elif existing is None:
        conn.execute(
            sa.insert(schema.user_topic).values(
                user_id=user.id,
                stream_id=stream["id"],
                recipient_id=stream["recipient_id"],
                topic_name=topic,
                last_updated=now,
                visibility_policy=visibility_policy,
            )
        )
    else:
        conn.execute(
            sa.update(schema.user_topic)
            .where(UT.id == existing)
            .values(topic_name=topic, last_updated=now, visibility_policy=visibility_policy)
        )
    muted = {"type": "muted_topics", "muted_topics": muted_topic_tuples(conn, user.id)}
    changed = {
        "type": "user_topic",
        "stream_id": stream["id"],
        "topic_name": topic,
        "last_updated": int(now),
        "visibility_policy": visibility_policy,
    }
    return Outcome(None, [Notice(muted, [user.id]), Notice(changed, [user.id])])


def update_user_topic(
    conn: Conn, user: User, stream_id: int, topic: str, policy: int
) -> Outcome[None]:
    """POST /user_topics: a policy is set on a readable stream; it can be removed (INHERIT) on
    any stream of the realm, even one archived since."""
    if policy == INHERIT:
        stream = stream_queries.stream_of_realm(conn, user, "Invalid stream ID", stream_id, None)
    else:
        stream, _sub = stream_queries.stream_for_reading(
            conn, user, stream_id, allow_realm_admin=False
        )
    return set_visibility_policy(conn, user, stream, topic, policy)


def update_muted_topic(
    conn: Conn, user: User, stream_id: int | None, name: str | None, topic: str, mute: bool
) -> Outcome[None]:
    """The legacy muted_topics endpoint: mute on a readable stream, by id or name; unmute on any
    stream of the realm."""
    if not mute:
        stream = stream_queries.stream_of_realm(conn, user, "Topic is not muted", stream_id, name)
        return set_visibility_policy(conn, user, stream, topic, INHERIT)
    if name is not None:
        stream = stream_queries.readable_stream_by_name(conn, user, name)
    else:
        assert stream_id is not None
        stream, _sub = stream_queries.stream_for_reading(
            conn, user, stream_id, allow_realm_admin=False
        )
    return set_visibility_policy(conn, user, stream, topic, MUTED)
