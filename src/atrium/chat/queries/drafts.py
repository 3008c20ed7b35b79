"""A user's drafts, as the drafts endpoint and the initial state show them."""

from __future__ import annotations

from typing import Any

import orjson
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.models import User
from atrium.core.db import Conn

D = schema.draft.c
U = schema.user.c


def draft_not_found() -> ChatError:
    return ChatError("Draft does not exist", "BAD_REQUEST", 404)


def draft_dict(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "type": row["type"],
        "to": orjson.loads(row["to_ids"]),
        "topic": row["topic"],
        "content": row["content"],
        "timestamp": int(row["last_edit_time"]),
    }


def check_sync_enabled(conn: Conn, user: User) -> None:
    enabled = conn.scalar(sa.select(U.enable_drafts_synchronization).where(U.id == user.id))
    if not enabled:
        raise ChatError("User has disabled synchronizing drafts.")


def user_drafts(conn: Conn, user: User) -> list[dict[str, Any]]:
    """The user's drafts, most recently edited first."""
    check_sync_enabled(conn, user)
    rows = conn.all(
        sa.select(schema.draft)
        .where(D.user_id == user.id)
        .order_by(D.last_edit_time.desc(), D.id.desc())
    )
    return [draft_dict(row) for row in rows]
