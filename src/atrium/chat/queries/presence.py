"""Presence as Zulip 7 reports it at feature level 185: per user, an `aggregated` entry and one
for the (single, "website") client, from the user's last connection and last activity.

Users who turned `presence_enabled` off, deactivated users, and everyone in an organization with
presence disabled are left out; so are users not seen for two weeks.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn

P = schema.user_presence.c
U = schema.user.c

# What clients are told (`server_presence_*` in /register).
PING_INTERVAL_SECONDS = 60
OFFLINE_THRESHOLD_SECONDS = 140
# A heartbeat within this long of the stored one changes nothing worth a write (Zulip 7's
# PRESENCE_UPDATE_MIN_FREQ_SECONDS).
MIN_UPDATE_SECONDS = 55
# Activity this close to the last connection still counts as "active" (Zulip 7's legacy offset).
ACTIVE_OFFSET_SECONDS = 70
MAX_AGE_SECONDS = 14 * 24 * 3600
CLIENT = "website"


def client_presence(last_connected: float, last_active: float | None) -> dict[str, Any]:
    """One client's legacy presence entry."""
    if last_active is not None and last_active + ACTIVE_OFFSET_SECONDS >= last_connected:
        status, timestamp = "active", last_active
    else:
        status, timestamp = "idle", last_connected
    return {"client": CLIENT, "status": status, "timestamp": int(timestamp), "pushable": False}


def presence_entry(last_connected: float, last_active: float | None) -> dict[str, Any]:
    one = client_presence(last_connected, last_active)
    aggregated = {"client": CLIENT, "status": one["status"], "timestamp": one["timestamp"]}
    return {"aggregated": aggregated, CLIENT: one}


def _rows(conn: Conn, realm_id: int, now: float, user_id: int | None = None) -> list[Any]:
    realm_off = conn.scalar(
        sa.select(schema.realm.c.presence_disabled).where(schema.realm.c.id == realm_id)
    )
    if realm_off:
        return []
    query = (
        sa.select(U.id, U.email, P.last_connected_time, P.last_active_time)
        .join(schema.user, U.id == P.user_id)
        .where(
            P.realm_id == realm_id,
            U.is_active.is_(True),
            U.presence_enabled.is_(True),
            P.last_connected_time >= now - MAX_AGE_SECONDS,
        )
    )
    if user_id is not None:
        query = query.where(P.user_id == user_id)
    return conn.all(query)


def realm_presences(conn: Conn, realm_id: int, *, slim: bool, now: float) -> dict[str, Any]:
    """`presences`, keyed by user id (slim_presence) or by email."""
    return {
        (str(r["id"]) if slim else r["email"]): presence_entry(
            r["last_connected_time"], r["last_active_time"]
        )
        for r in _rows(conn, realm_id, now)
    }


def user_presence(conn: Conn, realm_id: int, user_id: int, now: float) -> dict[str, Any] | None:
    rows = _rows(conn, realm_id, now, user_id)
    if not rows:
        return None
    return presence_entry(rows[0]["last_connected_time"], rows[0]["last_active_time"])


def stored_presence(conn: Conn, user_id: int) -> Any:
    return conn.one(
        sa.select(P.last_connected_time, P.last_active_time).where(P.user_id == user_id)
    )
