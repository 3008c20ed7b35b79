"""POST /users/me/presence: a client's heartbeat.

A heartbeat is the main write load of a quiet organization (every client, every minute), so it
writes at most one row, by primary key, and only when what it stores moved by more than
MIN_UPDATE_SECONDS; its `presence` event goes out only when others would see a change: the user
came back online, or became active again.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries.presence import (
    MIN_UPDATE_SECONDS,
    OFFLINE_THRESHOLD_SECONDS,
    client_presence,
    stored_presence,
)
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.users import active_user_ids, user_row
from atrium.core.db import Conn

P = schema.user_presence.c


def needs_write(stored: Any, active: bool, now: float) -> bool:
    """Whether a heartbeat would change the stored row (read before taking the writer)."""
    if stored is None:
        return True
    if now - stored["last_connected_time"] >= MIN_UPDATE_SECONDS:
        return True
    last_active = stored["last_active_time"]
    return active and (last_active is None or now - last_active >= MIN_UPDATE_SECONDS)


def record_presence(conn: Conn, user: User, active: bool, now: float) -> Outcome[None]:
    stored = stored_presence(conn, user.id)
    if not needs_write(stored, active, now):
        return Outcome(None)
    if stored is None:
        conn.execute(
            sa.insert(schema.user_presence).values(
                user_id=user.id,
                realm_id=user.realm_id,
                last_connected_time=now,
                last_active_time=now if active else None,
            )
        )
        was_online, was_active = False, False
    else:
        last_connected, last_active = stored["last_connected_time"], stored["last_active_time"]
        was_online = now - last_connected < OFFLINE_THRESHOLD_SECONDS
        was_active = client_presence(last_connected, last_active)["status"] == "active"
        values: dict[str, Any] = {"last_connected_time": now}
        if active:
            values["last_active_time"] = now
        conn.execute(sa.update(schema.user_presence).where(P.user_id == user.id).values(values))
    if was_online and (was_active or not active):
        return Outcome(None)
    if load_realm(conn, user.realm_id).setting("presence_disabled"):
        return Outcome(None)
    if not user_row(conn, user.realm_id, user.id)["presence_enabled"]:
        return Outcome(None)
    last_active = now if active else (None if stored is None else stored["last_active_time"])
    event = {
        "type": "presence",
        "user_id": user.id,
        "email": user.email,
        "server_timestamp": now,
        "presence": {"website": client_presence(now, last_active)},
    }
    return Outcome(None, [Notice(event, active_user_ids(conn, user.realm_id))])
