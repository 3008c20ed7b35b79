"""A sender's scheduled messages, as the endpoint and the initial state show them."""

from __future__ import annotations

from typing import Any

import orjson
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import User
from atrium.core.db import Conn

SM = schema.scheduled_message.c


def scheduled_dict(row: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"scheduled_message_id": row["id"], "type": row["type"]}
    if row["type"] == "stream":
        out["to"] = row["stream_id"]
        out["topic"] = row["topic"]
    else:
        out["to"] = orjson.loads(row["to_user_ids"])
    out.update(
        content=row["content"],
        rendered_content=row["rendered_content"],
        scheduled_delivery_timestamp=int(row["scheduled_timestamp"]),
        failed=bool(row["failed"]),
    )
    return out


def user_scheduled_messages(conn: Conn, sender: User) -> list[dict[str, Any]]:
    """The sender's undelivered scheduled messages (failed ones included), soonest first."""
    rows = conn.all(
        sa.select(schema.scheduled_message)
        .where(SM.sender_id == sender.id, SM.delivered.is_(False))
        .order_by(SM.scheduled_timestamp, SM.id)
    )
    return [scheduled_dict(row) for row in rows]
