"""User statuses (text, emoji) and the legacy `away` (the inverse of presence_enabled)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn

S = schema.user_status.c
U = schema.user.c


def status_dict(row: Any) -> dict[str, Any]:
    """Only what is set, as Zulip 7's `user_status` state."""
    out: dict[str, Any] = {}
    if row["status_text"]:
        out["status_text"] = row["status_text"]
    if row["emoji_name"]:
        out["emoji_name"] = row["emoji_name"]
        out["emoji_code"] = row["emoji_code"]
        out["reaction_type"] = row["reaction_type"]
    if not row["presence_enabled"]:
        out["away"] = True
    return out


def realm_statuses(conn: Conn, realm_id: int) -> dict[str, dict[str, Any]]:
    """By user id (as a string): active users with a status, or who appear away."""
    rows = conn.all(
        sa.select(
            U.id, U.presence_enabled, S.status_text, S.emoji_name, S.emoji_code, S.reaction_type
        )
        .select_from(schema.user.outerjoin(schema.user_status, S.user_id == U.id))
        .where(U.realm_id == realm_id, U.is_active.is_(True))
        .where(
            sa.or_(
                U.presence_enabled.is_(False),
                sa.func.coalesce(S.status_text, "") != "",
                sa.func.coalesce(S.emoji_name, "") != "",
            )
        )
        .order_by(U.id)
    )
    return {str(r["id"]): status_dict(r) for r in rows}
