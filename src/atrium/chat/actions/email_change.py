"""Changing one's email address, as Zulip does: `PATCH /settings` with `email` mails a link to
the new address, and the change happens only when that link is followed
(`/accounts/confirm_new_email/<token>/`), so nobody takes an address they cannot read.

The token is signed and names the account, the new address and the address it replaces: once
the change is made (or the address changes otherwise), the link no longer matches and does
nothing.
"""

from __future__ import annotations

import hashlib
import html
import time
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.user_settings import change_settings
from atrium.chat.actions.users import EMAIL_RE
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.users import (
    Viewer,
    active_user_ids,
    api_email,
    can_see_delivery_email,
    user_row,
    user_row_by_delivery_email,
)
from atrium.core.db import Conn
from atrium.core.mail import outbox
from atrium.core.mail.message import BadAddress, Composer
from atrium.core.signing import sign, unsign

U = schema.user.c
# Zulip's confirmation links for a new address last a day.
LINK_SECONDS = 24 * 3600
CONFIRM_PATH = "/accounts/confirm_new_email/"


def _fingerprint(address: str) -> str:
    return hashlib.sha256(address.lower().encode()).hexdigest()[:16]


def request_email_change(
    conn: Conn, actor: User, new_email: str, composer: Composer, secret: bytes
) -> Outcome[None]:
    """Check the new address and mail it a confirmation link."""
    new_email = new_email.strip()
    realm = load_realm(conn, actor.realm_id)
    if realm.row.get("email_changes_disabled") and not actor.is_admin:
        raise ChatError("Email address changes are disabled in this organization.")
    if not EMAIL_RE.match(new_email) or len(new_email) > 254:
        raise ChatError("Invalid address.")
    row = user_row(conn, actor.realm_id, actor.id)
    if new_email.lower() == str(row["delivery_email"]).lower():
        raise ChatError("New email address is the same as the current one.")
    if user_row_by_delivery_email(conn, actor.realm_id, new_email) is not None:
        raise ChatError("Email is already in use.")
    now = time.time()
    value = f"emailchange:{actor.id}:{_fingerprint(row['delivery_email'])}:{new_email}"
    link = composer.link(CONFIRM_PATH + sign(secret, value, LINK_SECONDS, now) + "/")
    text = (
        f"Hi {row['full_name']},\n\nSomeone (possibly you) asked to change the email address of"
        f" your account in {realm.name} ({composer.base_url}) from {row['delivery_email']} to"
        f" this address.\n\nTo confirm, follow this link within a day:\n{link}\n\n"
        "If you did not ask for this, ignore this mail: nothing changes.\n"
    )
    markup = (
        f"<p>Hi {html.escape(row['full_name'])},</p><p>Someone (possibly you) asked to change"
        f" the email address of your account in {html.escape(realm.name)} to this address.</p>"
        f'<p><a href="{html.escape(link)}">Confirm the new address</a> (within a day).</p>'
        "<p>If you did not ask for this, ignore this mail: nothing changes.</p>"
    )
    try:
        mail = composer.compose(
            new_email,
            f"Verify your new email address for {realm.name}",
            text,
            markup,
            to_name=row["full_name"],
            from_name=realm.name,
            now=now,
        )
    except BadAddress as exc:
        raise ChatError("Invalid address.") from exc
    outbox.enqueue(conn, schema.mail_outbox, mail, now)
    return Outcome(None, [])


def change_settings_and_email(
    conn: Conn,
    actor: User,
    changes: dict[str, Any],
    email_domain: str,
    new_email: str | None,
    composer: Composer,
    secret: bytes,
) -> Outcome[None]:
    """PATCH /settings: the settings and, if asked, the new address's confirmation mail, in one
    transaction (a refused address changes nothing)."""
    outcome = change_settings(conn, actor, changes, email_domain)
    if new_email is not None:
        request_email_change(conn, actor, new_email, composer, secret)
    return outcome


def confirm_email_change(
    conn: Conn, secret: bytes, token: str, email_domain: str
) -> Outcome[str | None]:
    """Make the change a confirmation link stands for; the new address, or None if the link is
    forged, expired, used or stale."""
    value = unsign(secret, token)
    if value is None or not value.startswith("emailchange:"):
        return Outcome(None, [])
    _, user_id, fingerprint, new_email = value.split(":", 3)
    if not user_id.isdigit():
        return Outcome(None, [])
    row = conn.one(sa.select(schema.user).where(U.id == int(user_id)))
    if row is None or not row["is_active"] or _fingerprint(row["delivery_email"]) != fingerprint:
        return Outcome(None, [])
    if user_row_by_delivery_email(conn, row["realm_id"], new_email) is not None:
        return Outcome(None, [])
    visibility = int(row["email_address_visibility"])
    shown = api_email(row["id"], new_email, visibility, email_domain)
    conn.execute(
        sa.update(schema.user)
        .where(U.id == row["id"])
        .values(delivery_email=new_email, email=shown)
    )
    everyone = active_user_ids(conn, row["realm_id"])
    notices = []
    if shown != row["email"]:
        person = {"user_id": row["id"], "new_email": shown}
        notices.append(Notice({"type": "realm_user", "op": "update", "person": person}, everyone))
    seeing = [
        int(r["id"])
        for r in conn.all(sa.select(U.id, U.role).where(U.id.in_(everyone)))
        if can_see_delivery_email(Viewer(int(r["id"]), int(r["role"])), row["id"], visibility)
    ]
    if seeing:
        person = {"user_id": row["id"], "delivery_email": new_email}
        notices.append(Notice({"type": "realm_user", "op": "update", "person": person}, seeing))
    return Outcome(new_email, notices)
