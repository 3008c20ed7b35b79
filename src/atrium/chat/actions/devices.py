"""Mobile push registrations and dismissed hotspots: small per-user records.

Push tokens are stored so that a push bouncer could use them; this server configures none, so no
notification is sent (the register response says `realm_push_notifications_enabled: false`).
"""

from __future__ import annotations

import re
import time

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries.hotspots import INTRO_HOTSPOTS, next_hotspots
from atrium.core.db import Conn

P = schema.push_device_token.c
H = schema.user_hotspot.c
MAX_TOKEN_LENGTH = 4096
_APP_ID = re.compile(r"^[.a-zA-Z0-9-]+$")


def check_token(token: str, kind: int) -> None:
    if token == "" or len(token) > MAX_TOKEN_LENGTH:
        raise ChatError("Empty or invalid length token")
    if kind == schema.PUSH_APNS:
        try:
            bytes.fromhex(token)
        except ValueError:
            raise ChatError("Invalid APNS token") from None


def add_push_token(
    conn: Conn, user: User, kind: int, token: str, app_id: str | None
) -> Outcome[None]:
    check_token(token, kind)
    if app_id is not None and not _APP_ID.match(app_id):
        raise ChatError("Invalid app ID")
    where = (P.user_id == user.id, P.kind == kind, P.token == token)
    if conn.scalar(sa.select(P.id).where(*where)) is None:
        conn.execute(
            sa.insert(schema.push_device_token).values(
                user_id=user.id, kind=kind, token=token, ios_app_id=app_id, last_updated=time.time()
            )
        )
    else:
        conn.execute(
            sa.update(schema.push_device_token)
            .where(*where)
            .values(ios_app_id=app_id, last_updated=time.time())
        )
    return Outcome(None)


def remove_push_token(conn: Conn, user: User, kind: int, token: str) -> Outcome[None]:
    check_token(token, kind)
    where = (P.user_id == user.id, P.kind == kind, P.token == token)
    if conn.scalar(sa.select(P.id).where(*where)) is None:
        raise ChatError("Token does not exist")
    conn.execute(sa.delete(schema.push_device_token).where(*where))
    return Outcome(None)


def mark_hotspot_read(conn: Conn, user: User, hotspot: str) -> Outcome[None]:
    if hotspot not in INTRO_HOTSPOTS:
        raise ChatError(f"Unknown hotspot: {hotspot}")
    seen = conn.scalar(sa.select(H.hotspot).where(H.user_id == user.id, H.hotspot == hotspot))
    if seen is None:
        conn.execute(
            sa.insert(schema.user_hotspot).values(
                user_id=user.id, hotspot=hotspot, timestamp=time.time()
            )
        )
    event = {"type": "hotspots", "hotspots": next_hotspots(conn, user.id)}
    return Outcome(None, [Notice(event, [user.id])])
