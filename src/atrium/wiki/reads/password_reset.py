"""Who a password reset request reaches, and the temporary password an account may sign in with."""

from __future__ import annotations

import time
from dataclasses import dataclass

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema

U = schema.user.c
# $wgNewPasswordExpiry: a mailed temporary password is good for 7 days.
NEW_PASSWORD_EXPIRY_DAYS = 7


def ts14_ago(seconds: float) -> str:
    return time.strftime("%Y%m%d%H%M%S", time.gmtime(time.time() - seconds))


@dataclass(frozen=True)
class ResetTarget:
    id: int
    name: str
    email: str


def reset_targets(
    conn: Conn, name: str | None, email: str | None, resent_before: str
) -> list[ResetTarget]:
    """The accounts a request names (by user name, by email address, or both, which must then
    agree) that have an address, leaving out those mailed a temporary password after
    `resent_before` ($wgPasswordReminderResendTime)."""
    query = sa.select(U.user_id, U.user_name, U.user_email, U.user_newpass_time).where(
        U.user_email != ""
    )
    if name is not None:
        query = query.where(U.user_name == name)
    if email is not None:
        query = query.where(sa.func.lower(U.user_email) == email.strip().lower())
    rows = conn.all(query.order_by(U.user_id).limit(50))
    return [
        ResetTarget(int(row["user_id"]), str(row["user_name"]), str(row["user_email"]))
        for row in rows
        if not row["user_newpass_time"] or row["user_newpass_time"] < resent_before
    ]


def temporary_password_hash(conn: Conn, user_id: int, made_after: str) -> str:
    """The hash of the account's mailed temporary password, "" if none or expired."""
    row = conn.one(sa.select(U.user_newpassword, U.user_newpass_time).where(U.user_id == user_id))
    if row is None or not row["user_newpassword"] or not row["user_newpass_time"]:
        return ""
    return str(row["user_newpassword"]) if row["user_newpass_time"] > made_after else ""
