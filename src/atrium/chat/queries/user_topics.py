"""Reading users' topic visibility policies (Zulip's UserTopic): register state and muting.

Muting follows Zulip's `exclude_muting_conditions`: the messages of a topic the user muted are
left out of combined views (`in:home`) and skipped by the `first_unread` anchor. The policies are
few per user, so they are read first and the condition is spelt out (nothing at all is added
for a user who muted nothing), as Zulip does.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from atrium.chat import schema
from atrium.core.db import Conn

UT = schema.user_topic.c
S = schema.stream.c
M = schema.message.c

INHERIT, MUTED, UNMUTED, FOLLOWED = 0, 1, 2, 3
VISIBILITY_POLICIES = (INHERIT, MUTED, UNMUTED, FOLLOWED)


def _rows(conn: Conn, user_id: int, policy: int | None = None) -> list[Any]:
    query = (
        sa.select(UT.stream_id, S.name, UT.topic_name, UT.last_updated, UT.visibility_policy)
        .join(schema.stream, S.id == UT.stream_id)
        .where(UT.user_id == user_id, S.deactivated.is_(False))
        .order_by(UT.id)
    )
    if policy is not None:
        query = query.where(UT.visibility_policy == policy)
    return conn.all(query)


def user_topic_dicts(conn: Conn, user_id: int) -> list[dict[str, Any]]:
    """The register state's `user_topics` (streams that still exist)."""
    return [
        {
            "stream_id": r["stream_id"],
            "topic_name": r["topic_name"],
            "last_updated": int(r["last_updated"]),
            "visibility_policy": r["visibility_policy"],
        }
        for r in _rows(conn, user_id)
    ]


def muted_topic_tuples(conn: Conn, user_id: int) -> list[list[Any]]:
    """The legacy `muted_topics`: [stream name, topic, timestamp] per muted topic."""
    return [
        [r["name"], r["topic_name"], int(r["last_updated"])] for r in _rows(conn, user_id, MUTED)
    ]


def muted_topics_condition(conn: Conn, user_id: int) -> ColumnElement[bool] | None:
    """True for messages outside the user's muted topics; None when nothing is muted.

    Deactivated streams count too (their messages may still be read), as in Zulip.
    """
    rows = conn.all(
        sa.select(UT.recipient_id, UT.topic_name).where(
            UT.user_id == user_id, UT.visibility_policy == MUTED
        )
    )
    if not rows:
        return None
    muted = [
        sa.and_(
            M.recipient_id == r["recipient_id"],
            sa.func.lower(M.topic) == sa.func.lower(sa.literal(r["topic_name"])),
        )
        for r in rows
    ]
    return sa.not_(sa.or_(*muted))
