"""Confirming an account's email address (Special:ConfirmEmail), as MediaWiki's
`$wgEmailAuthentication`: a mailed code, kept only as its hash, good for seven days; following
its link confirms the address, its cancel link (Special:InvalidateEmail) withdraws it."""

from __future__ import annotations

import hashlib
import secrets
import time

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes.mail import mail_text, send
from atrium.wiki.site import Site
from atrium.wiki.timestamps import formatted, now14

U = schema.user.c
# $wgUserEmailConfirmationTokenExpiry: seven days.
TOKEN_SECONDS = 7 * 86400


def _hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def _ts14(when: float) -> str:
    return time.strftime("%Y%m%d%H%M%S", time.gmtime(when))


def mail_confirmation(
    conn: Conn, site: Site, user_id: int, client_ip: str, reason: str = "set"
) -> bool:
    """A new confirmation code for the account's address, mailed to it; False if it has none.
    `reason`: `set`, `changed` or `registered` (which of MediaWiki's texts is sent)."""
    row = conn.one(sa.select(U.user_name, U.user_email).where(U.user_id == user_id))
    if row is None or not row["user_email"]:
        return False
    code = secrets.token_hex(16)
    expires = _ts14(time.time() + TOKEN_SECONDS)
    conn.execute(
        sa.update(schema.user)
        .where(U.user_id == user_id)
        .values(user_email_token=_hash(code), user_email_token_expires=expires)
    )
    key = {"set": "confirmemail_body_set", "changed": "confirmemail_body_changed"}.get(
        reason, "confirmemail_body"
    )
    body = mail_text(
        site,
        key,
        client_ip,
        row["user_name"],
        f"{site.server}/wiki/Special:ConfirmEmail/{code}",
        formatted(expires),
        f"{site.server}/wiki/Special:InvalidateEmail/{code}",
    )
    subject = mail_text(site, "confirmemail_subject")
    return send(conn, site, row["user_email"], row["user_name"], subject, body)


def _holder(conn: Conn, code: str) -> int | None:
    row = conn.one(
        sa.select(U.user_id, U.user_email_token_expires).where(U.user_email_token == _hash(code))
    )
    if row is None or not row["user_email_token_expires"]:
        return None
    return int(row["user_id"]) if row["user_email_token_expires"] > now14() else None


def confirm_email(conn: Conn, code: str) -> int | None:
    """Confirm the address the code was mailed to; the account's id, None for a bad code."""
    user_id = _holder(conn, code)
    if user_id is not None:
        conn.execute(
            sa.update(schema.user)
            .where(U.user_id == user_id)
            .values(
                user_email_authenticated=now14(),
                user_email_token=None,
                user_email_token_expires=None,
            )
        )
    return user_id


def set_confirmed_email(conn: Conn, user_id: int, email: str) -> None:
    """An address confirmed elsewhere (the chat's invitation or change link, for a workspace
    member): stored as confirmed, so one confirmation serves both services."""
    conn.execute(
        sa.update(schema.user)
        .where(U.user_id == user_id)
        .values(
            user_email=email,
            user_email_authenticated=now14(),
            user_email_token=None,
            user_email_token_expires=None,
        )
    )


def keep_confirmed_email(conn: Conn, user_id: int, email: str) -> None:
    """`set_confirmed_email` unless the account has that address confirmed already (a
    member's address follows the chat's, where it is confirmed by the invitation, the sign-up
    or the change link)."""
    row = conn.one(sa.select(U.user_email, U.user_email_authenticated).where(U.user_id == user_id))
    if row is None:
        return
    if row["user_email"] == email and row["user_email_authenticated"]:
        return
    set_confirmed_email(conn, user_id, email)


def invalidate_email(conn: Conn, code: str) -> int | None:
    """Withdraw the confirmation the code was mailed for; the account's id, None for a bad
    code."""
    user_id = _holder(conn, code)
    if user_id is not None:
        conn.execute(
            sa.update(schema.user)
            .where(U.user_id == user_id)
            .values(
                user_email_authenticated=None,
                user_email_token=None,
                user_email_token_expires=None,
            )
        )
    return user_id
