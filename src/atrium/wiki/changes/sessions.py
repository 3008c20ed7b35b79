"""Login sessions: created when a client first needs one (a login token), bound to a user at login."""

from __future__ import annotations

import secrets
import time

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema

SESSION_SECONDS = 30 * 24 * 3600


def create_session(
    conn: Conn, user_id: int | None = None, bot_app: str | None = None
) -> tuple[str, str]:
    """A new session; returns (session id for the cookie, secret that tokens are derived from)."""
    session_id = secrets.token_hex(16)
    secret = secrets.token_hex(16)
    now = int(time.time())
    conn.execute(sa.delete(schema.session).where(schema.session.c.s_expiry < now))
    conn.execute(
        sa.insert(schema.session).values(
            s_id=session_id,
            s_user=user_id,
            s_bot_app=bot_app,
            s_secret=secret,
            s_expiry=now + SESSION_SECONDS,
        )
    )
    return session_id, secret


def destroy_session(conn: Conn, session_id: str) -> None:
    conn.execute(sa.delete(schema.session).where(schema.session.c.s_id == session_id))
