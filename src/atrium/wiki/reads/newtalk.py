"""Whether a user (or an IP address) has an unseen edit to their talk page."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema

NT = schema.user_newtalk


def has_new_talk(conn: Conn, user_id: int | None, ip: str) -> bool:
    where = NT.c.user_id == user_id if user_id else sa.and_(NT.c.user_id == 0, NT.c.user_ip == ip)
    return bool(conn.scalar(sa.select(sa.func.count()).select_from(NT).where(where)))
