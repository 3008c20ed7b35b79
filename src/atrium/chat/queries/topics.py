"""GET /users/me/{stream_id}/topics: a stream's topics, newest first, as the reader may see them."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn

M = schema.message.c
UM = schema.user_message.c


def topic_history(
    conn: Conn, user_id: int, stream_id: int, *, public_history: bool
) -> list[dict[str, Any]]:
    """Each topic (case-insensitively one) with its latest message id, named as that message
    names it. A stream without public history shows only the messages the user received."""
    latest = (
        sa.select(sa.func.max(M.id).label("max_id"))
        .where(M.stream_id == stream_id)
        .group_by(sa.func.lower(M.topic))
    )
    if not public_history:
        latest = latest.join(
            schema.user_message, sa.and_(UM.message_id == M.id, UM.user_id == user_id)
        )
    sub = latest.subquery()
    rows = conn.all(sa.select(M.topic, M.id).join(sub, M.id == sub.c.max_id).order_by(M.id.desc()))
    return [{"name": r["topic"], "max_id": r["id"]} for r in rows]


def topic_message_ids(
    conn: Conn, user_id: int, stream_id: int, topic: str, *, public_history: bool
) -> list[int]:
    """The ids of a topic's messages the user may reach."""
    query = sa.select(M.id).where(M.stream_id == stream_id, sa.func.lower(M.topic) == topic.lower())
    if not public_history:
        query = query.join(
            schema.user_message, sa.and_(UM.message_id == M.id, UM.user_id == user_id)
        )
    return [int(i) for i in conn.scalars(query.order_by(M.id))]
