"""Reading invitations: GET /invites, and the invitation a sign-up link names."""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import User
from atrium.core.db import Conn

I = schema.invitation.c  # noqa: E741

PENDING = 0
USED = 1
REVOKED = 2


def invite_link(base_url: str, token: str) -> str:
    return f"{base_url}/join/{token}/"


def _usable(row: Any, now: float) -> bool:
    return row["status"] == PENDING and (row["expires"] is None or row["expires"] > now)


def invite_dict(row: Any, base_url: str) -> dict[str, Any]:
    """Zulip's Invite object; `link_url` for every invitation, since with no mail server the
    inviter passes the link on themselves."""
    record: dict[str, Any] = {
        "id": row["id"],
        "invited_by_user_id": row["invited_by_id"],
        "invited": int(row["created"]),
        "expiry_date": None if row["expires"] is None else int(row["expires"]),
        "invited_as": row["invite_as"],
        "is_multiuse": row["email"] is None,
        "link_url": invite_link(base_url, row["token"]),
    }
    if row["email"] is not None:
        record["email"] = row["email"]
    return record


def visible_invites(conn: Conn, viewer: User, base_url: str) -> list[dict[str, Any]]:
    """Usable invitations: all of them for an administrator, else the viewer's own."""
    query = sa.select(schema.invitation).where(I.realm_id == viewer.realm_id)
    if not viewer.is_admin:
        query = query.where(I.invited_by_id == viewer.id)
    now = time.time()
    return [
        invite_dict(row, base_url) for row in conn.all(query.order_by(I.id)) if _usable(row, now)
    ]


def usable_invitation(conn: Conn, token: str) -> Any:
    """The pending, unexpired invitation a link's token names, or None."""
    row = conn.one(sa.select(schema.invitation).where(I.token == token))
    if row is None or not _usable(row, time.time()):
        return None
    return row


def invitation_row(conn: Conn, realm_id: int, invite_id: int) -> Any:
    return conn.one(sa.select(schema.invitation).where(I.id == invite_id, I.realm_id == realm_id))
