"""Password reset: a mailed link that sets a new password once, within a day.

The link's token is signed with the server's secret and names the account and a fingerprint of
its current password hash, as Django's reset tokens do: setting a password changes the hash, so
the link works once, and an older link dies with it. Nothing is stored until the reset happens.
"""

from __future__ import annotations

import hashlib
import html
import time

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.invites import MIN_PASSWORD_LENGTH
from atrium.chat.errors import ChatError
from atrium.chat.events import Outcome
from atrium.chat.queries.realm import default_realm
from atrium.chat.queries.users import user_row_by_delivery_email
from atrium.core.db import Conn
from atrium.core.mail import outbox
from atrium.core.mail.message import BadAddress, Composer
from atrium.core.signing import sign, unsign

U = schema.user.c
# Django's PASSWORD_RESET_TIMEOUT as Zulip sets it: one day.
RESET_LINK_SECONDS = 24 * 3600
RESET_PATH = "/accounts/password/reset/"


def _fingerprint(password_hash: str | None) -> str:
    return hashlib.sha256((password_hash or "").encode()).hexdigest()[:16]


def reset_token(secret: bytes, user_id: int, password_hash: str | None, now: float) -> str:
    return sign(secret, f"pwreset:{user_id}:{_fingerprint(password_hash)}", RESET_LINK_SECONDS, now)


def request_password_reset(
    conn: Conn, composer: Composer, secret: bytes, email: str
) -> Outcome[None]:
    """Mail a reset link to the active account with this address, if there is one. The caller's
    answer is the same either way, so the form tells nobody which addresses have accounts."""
    realm = default_realm(conn)
    if realm is None:
        return Outcome(None, [])
    row = user_row_by_delivery_email(conn, realm.id, email)
    if row is None or not row["is_active"] or row["is_bot"]:
        return Outcome(None, [])
    now = time.time()
    link = composer.link(
        RESET_PATH + reset_token(secret, row["id"], row["password_hash"], now) + "/"
    )
    text = (
        f"Hi {row['full_name']},\n\n"
        f"Someone (possibly you) requested a new password for your account {row['delivery_email']}"
        f" in {realm.name} ({composer.base_url}).\n\n"
        f"To set a new password, follow this link within a day:\n{link}\n\n"
        "If you did not ask for this, ignore this mail: your password stays as it is.\n"
    )
    markup = (
        f"<p>Hi {html.escape(row['full_name'])},</p>"
        f"<p>Someone (possibly you) requested a new password for your account "
        f"<b>{html.escape(row['delivery_email'])}</b> in {html.escape(realm.name)}.</p>"
        f'<p><a href="{html.escape(link)}">Reset your password</a> (within a day).</p>'
        "<p>If you did not ask for this, ignore this mail: your password stays as it is.</p>"
    )
    try:
        message = composer.compose(
            row["delivery_email"],
            f"Reset your password for {realm.name}",
            text,
            markup,
            to_name=row["full_name"],
            from_name=realm.name,
        )
    except BadAddress:
        return Outcome(None, [])
    outbox.enqueue(conn, schema.mail_outbox, message, now)
    return Outcome(None, [])


def reset_link_user(conn: Conn, secret: bytes, token: str) -> int | None:
    """The account a reset link may still set the password of, or None."""
    value = unsign(secret, token)
    if value is None:
        return None
    kind, _, rest = value.partition(":")
    user_id, _, fingerprint = rest.partition(":")
    if kind != "pwreset" or not user_id.isdigit():
        return None
    row = conn.one(
        sa.select(U.id, U.password_hash, U.is_active, U.is_bot).where(U.id == int(user_id))
    )
    if row is None or not row["is_active"] or row["is_bot"]:
        return None
    if _fingerprint(row["password_hash"]) != fingerprint:
        return None  # the password changed since: the link was used, or is stale
    return int(row["id"])


def link_expired() -> ChatError:
    return ChatError("The password reset link has expired or has already been used.", status=404)


def reset_password(
    conn: Conn, secret: bytes, token: str, password: str, password_hash: str
) -> Outcome[int]:
    """Set the password a reset link allows (hashed by the caller, off the event loop); the
    account's id. The check is repeated inside the transaction, so two tabs cannot both use it."""
    user_id = reset_link_user(conn, secret, token)
    if user_id is None:
        raise link_expired()
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ChatError(f"The password must be at least {MIN_PASSWORD_LENGTH} characters long.")
    conn.execute(sa.update(schema.user).where(U.id == user_id).values(password_hash=password_hash))
    return Outcome(user_id, [])
