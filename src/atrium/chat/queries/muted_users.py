"""Muted users: whom a user muted, and who muted a sender."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn, Prepared

MU = schema.muted_user.c


def muted_user_dicts(conn: Conn, user_id: int) -> list[dict[str, Any]]:
    """`muted_users` as Zulip shows it: id and the time of muting (an integer)."""
    rows = conn.all(
        sa.select(MU.muted_user_id, MU.date_muted)
        .where(MU.user_id == user_id)
        .order_by(MU.date_muted, MU.muted_user_id)
    )
    return [{"id": r["muted_user_id"], "timestamp": int(r["date_muted"])} for r in rows]


# Every message's send asks it, inside the send's transaction.
_MUTERS = Prepared(sa.select(MU.user_id).where(MU.muted_user_id == sa.bindparam("sender")))


def muters_of(conn: Conn, sender_id: int) -> set[int]:
    """Users who muted this sender: their copies of its messages arrive already read."""
    return {int(u) for u in conn.scalars(_MUTERS, {"sender": sender_id})}
