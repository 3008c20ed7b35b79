"""The `reactions` of message objects: who reacted to which messages with which emoji."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn

R = schema.reaction.c
U = schema.user.c


def reactions_by_message(conn: Conn, message_ids: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
    """Each message's reactions in the order they were made, shaped as Zulip 7 shows them
    (`user_id`, and the deprecated `user` object that clients of that era still read)."""
    ids = list(message_ids)
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    if not ids:
        return out
    rows = conn.all(
        sa.select(
            R.message_id,
            R.user_id,
            R.emoji_name,
            R.emoji_code,
            R.reaction_type,
            U.email,
            U.full_name,
        )
        .join(schema.user, U.id == R.user_id)
        .where(R.message_id.in_(ids))
        .order_by(R.id)
    )
    for r in rows:
        out[r["message_id"]].append(
            {
                "emoji_name": r["emoji_name"],
                "emoji_code": r["emoji_code"],
                "reaction_type": r["reaction_type"],
                "user_id": r["user_id"],
                "user": {
                    "id": r["user_id"],
                    "email": r["email"],
                    "full_name": r["full_name"],
                    "is_mirror_dummy": False,
                },
            }
        )
    return out


def reactions_of_rows(conn: Conn, rows: Iterable[Any]) -> dict[int, list[dict[str, Any]]]:
    """Reactions of the message rows that ever had one (`reaction_version` > 0); a message
    nobody reacted to costs no lookup."""
    return reactions_by_message(
        conn, [r["id"] for r in rows if (r.get("reaction_version") or 0) > 0]
    )
