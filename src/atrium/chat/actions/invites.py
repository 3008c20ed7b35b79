"""Invitations: by email or as a reusable link, revoked, resent, and accepted on the sign-up page.

An invitation by email is mailed in the transaction that makes it (and again when resent). Where
no mail server is configured the mail only reaches the mail sink, so the link is also what the
inviter can hand on: GET /invites shows it to the inviter and to administrators, and
`atrium chat invites` prints it. `invites_changed`
tells administrators and the inviter that the list changed, as Zulip does.
"""

from __future__ import annotations

import html
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

import orjson
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.streams import STREAM_COLORS
from atrium.chat.actions.users import EMAIL_RE, NewUser, add_user
from atrium.chat.actions.welcome_bot import welcome_new_user
from atrium.chat.errors import ChatError, must_be_admin, must_be_owner
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import (
    POLICY_MEMBERS_ONLY,
    ROLE_ADMINISTRATOR,
    ROLE_NAMES,
    ROLE_OWNER,
    User,
)
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.domains import email_allowed_by_domains
from atrium.chat.queries.invites import PENDING, REVOKED, USED, invitation_row, usable_invitation
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.users import admin_user_ids, user_row_by_delivery_email
from atrium.core.db import Conn
from atrium.core.mail import outbox
from atrium.core.mail.message import BadAddress, Composer

I = schema.invitation.c  # noqa: E741
SUB = schema.subscription.c

# Zulip's INVITATION_LINK_VALIDITY_MINUTES default: ten days.
DEFAULT_VALIDITY_MINUTES = 10 * 24 * 60
MIN_PASSWORD_LENGTH = 6
_NAME_AND_ADDRESS = re.compile(r"<(?P<email>[^>]+)>")


def _notice(conn: Conn, realm_id: int, inviter_id: int) -> Notice:
    audience = sorted({*admin_user_ids(conn, realm_id), inviter_id})
    return Notice({"type": "invites_changed"}, audience)


def _expiry(minutes: int | None) -> float | None:
    if minutes is None:
        return None
    if minutes <= 0:
        raise ChatError("Invalid invite_expires_in_minutes")
    return time.time() + minutes * 60


def check_invite_role(actor: User, invite_as: int) -> None:
    if invite_as not in ROLE_NAMES.values():
        raise ChatError("Must be invited as an valid type of user")
    if invite_as == ROLE_OWNER and not actor.is_owner:
        raise must_be_owner()
    if invite_as == ROLE_ADMINISTRATOR and not actor.is_admin:
        raise must_be_admin()


def invitee_emails(raw: str) -> list[str]:
    """Comma- or newline-separated addresses, each possibly as `Name <address>`."""
    out = []
    for part in re.split(r"[,\n]", raw):
        part = part.strip()
        match = _NAME_AND_ADDRESS.search(part)
        email = (match.group("email") if match else part).strip()
        if email and email not in out:
            out.append(email)
    return out


@dataclass(frozen=True)
class InviteResult:
    """Addresses skipped because they already have accounts: (email, reason, deactivated)."""

    skipped: list[tuple[str, str, bool]]


def invite_users(
    conn: Conn,
    actor: User,
    emails_raw: str,
    invite_as: int,
    stream_ids: list[int],
    expires_in_minutes: int | None,
    composer: Composer,
) -> Outcome[InviteResult]:
    realm = load_realm(conn, actor.realm_id)
    policy = realm.row.get("invite_to_realm_policy", POLICY_MEMBERS_ONLY)
    if not actor.satisfies_policy(policy, realm, time.time()):
        raise ChatError("Insufficient permission")
    check_invite_role(actor, invite_as)
    if not emails_raw.strip():
        raise ChatError("You must specify at least one email address.")
    if not stream_ids:
        raise ChatError("You must specify at least one stream for invitees to join.")
    for stream_id in stream_ids:
        stream = stream_queries.stream_by_id(conn, actor.realm_id, stream_id)
        subscribed = (
            stream is not None
            and stream_queries.active_subscription(conn, actor.id, stream_id) is not None
        )
        if stream is None or not stream_queries.can_see_stream(actor, stream, subscribed):
            raise ChatError(f"Stream does not exist with id: {stream_id}. No invites were sent.")
    emails = invitee_emails(emails_raw)
    restricted = bool(realm.row.get("emails_restricted_to_domains", False))
    invalid: list[tuple[str, str, bool]] = []
    for email in emails:
        if not EMAIL_RE.match(email):
            invalid.append((email, "Invalid address.", False))
        elif restricted and not email_allowed_by_domains(conn, actor.realm_id, email):
            invalid.append((email, "Outside your domain.", False))
    if invalid:
        raise invitation_error(
            "Some emails did not validate, so we didn't send any invitations.", invalid, False
        )
    skipped: list[tuple[str, str, bool]] = []
    for email in emails:
        existing = user_row_by_delivery_email(conn, actor.realm_id, email)
        if existing is not None:
            if existing["is_active"]:
                skipped.append((email, "Already has an account.", False))
            else:
                skipped.append((email, "Account has been deactivated.", True))
    if skipped and len(skipped) == len(emails):
        raise invitation_error("We weren't able to invite anyone.", skipped, False)
    expires = _expiry(expires_in_minutes)
    skipped_emails = {s[0] for s in skipped}
    for email in emails:
        if email not in skipped_emails:
            token = _insert(conn, actor, email, invite_as, stream_ids, expires)
            _mail_invitation(conn, composer, actor, realm.name, email, token, expires)
    return Outcome(InviteResult(skipped), [_notice(conn, actor.realm_id, actor.id)])


def invitation_error(msg: str, errors: list[tuple[str, str, bool]], sent: bool) -> ChatError:
    return ChatError(
        msg,
        "INVITATION_FAILED",
        errors=[list(e) for e in errors],
        sent_invitations=sent,
        license_limit_reached=False,
        daily_limit_reached=False,
    )


def _insert(
    conn: Conn,
    actor: User,
    email: str | None,
    invite_as: int,
    stream_ids: list[int],
    expires: float | None,
) -> str:
    token = secrets.token_urlsafe(24)
    conn.execute(
        sa.insert(schema.invitation).values(
            realm_id=actor.realm_id,
            invited_by_id=actor.id,
            email=email,
            invite_as=invite_as,
            stream_ids=orjson.dumps(stream_ids).decode(),
            token=token,
            created=time.time(),
            expires=expires,
            status=PENDING,
        )
    )
    return token


def _mail_invitation(
    conn: Conn,
    composer: Composer,
    actor: User,
    realm_name: str,
    email: str,
    token: str,
    expires: float | None,
) -> None:
    link = composer.link(f"/join/{token}/")
    until = (
        ""
        if expires is None
        else " The link works until "
        + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(expires))
        + "."
    )
    text = (
        f"Hi,\n\n{actor.full_name} ({actor.email}) invited you to join {realm_name}"
        f" ({composer.base_url}).\n\nTo create your account, follow this link:\n{link}\n\n"
        f"{until.strip()}\n"
    )
    markup = (
        f"<p>Hi,</p><p>{html.escape(actor.full_name)} invited you to join "
        f"<b>{html.escape(realm_name)}</b>.</p>"
        f'<p><a href="{html.escape(link)}">Create your account</a>.{html.escape(until)}</p>'
    )
    try:
        message = composer.compose(
            email,
            f"{actor.full_name} invited you to join {realm_name}",
            text,
            markup,
            from_name=realm_name,
        )
    except BadAddress:
        return  # refused earlier by EMAIL_RE; nothing can be sent to it
    outbox.enqueue(conn, schema.mail_outbox, message, time.time())


def create_multiuse_invite(
    conn: Conn,
    actor: User,
    invite_as: int,
    stream_ids: list[int],
    expires_in_minutes: int | None,
) -> Outcome[str]:
    """A reusable sign-up link (administrators only); its token."""
    if not actor.is_admin:
        raise must_be_admin()
    check_invite_role(actor, invite_as)
    for stream_id in stream_ids:
        if stream_queries.stream_by_id(conn, actor.realm_id, stream_id) is None:
            raise ChatError(f"Invalid stream ID {stream_id}. No invites were sent.")
    token = _insert(conn, actor, None, invite_as, stream_ids, _expiry(expires_in_minutes))
    return Outcome(token, [_notice(conn, actor.realm_id, actor.id)])


def _own_or_admin(actor: User, row: Any) -> None:
    if row["invited_by_id"] != actor.id and not actor.is_admin:
        raise must_be_admin()


def revoke_invite(conn: Conn, actor: User, invite_id: int, multiuse: bool) -> Outcome[None]:
    row = invitation_row(conn, actor.realm_id, invite_id)
    if multiuse:
        if row is None or row["email"] is not None:
            raise ChatError("Invalid invitation ID.")
        if not actor.is_admin:
            raise must_be_admin()
        if row["status"] == REVOKED:
            raise ChatError("Invitation has already been revoked")
    else:
        if row is None or row["email"] is None or row["status"] != PENDING:
            raise ChatError("No such invitation")
        _own_or_admin(actor, row)
    conn.execute(sa.update(schema.invitation).where(I.id == invite_id).values(status=REVOKED))
    return Outcome(None, [_notice(conn, actor.realm_id, row["invited_by_id"])])


def resend_invite(conn: Conn, actor: User, invite_id: int, composer: Composer) -> Outcome[str]:
    """Renews an email invitation's date and mails it again (the link stays the same); its
    token."""
    row = invitation_row(conn, actor.realm_id, invite_id)
    if row is None or row["email"] is None or row["status"] != PENDING:
        raise ChatError("No such invitation")
    _own_or_admin(actor, row)
    conn.execute(sa.update(schema.invitation).where(I.id == invite_id).values(created=time.time()))
    realm = load_realm(conn, actor.realm_id)
    _mail_invitation(conn, composer, actor, realm.name, row["email"], row["token"], row["expires"])
    return Outcome(row["token"], [_notice(conn, actor.realm_id, row["invited_by_id"])])


def link_expired() -> ChatError:
    return ChatError("The confirmation link has expired or been deactivated.", status=404)


def accept_invitation(
    conn: Conn,
    token: str,
    email: str | None,
    full_name: str,
    password: str,
    email_domain: str = "localhost",
    password_hash: str | None = None,
) -> Outcome[int]:
    """The sign-up page's form: create the account the invitation allows; its user id.

    `email_domain`: the server's host name, should the new user's address be hidden."""
    row = usable_invitation(conn, token)
    if row is None:
        raise link_expired()
    address = row["email"] if row["email"] is not None else (email or "").strip()
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ChatError(f"The password must be at least {MIN_PASSWORD_LENGTH} characters long.")
    realm = load_realm(conn, row["realm_id"])
    if (
        row["email"] is None
        and realm.row.get("emails_restricted_to_domains", False)
        and not email_allowed_by_domains(conn, row["realm_id"], address)
    ):
        raise ChatError("Your email address is not in one of the domains this organization allows.")
    new = NewUser(
        email=address,
        full_name=full_name,
        password=password,
        password_hash=password_hash,
        role=row["invite_as"],
        email_domain=email_domain,
    )
    outcome = add_user(conn, row["realm_id"], new)
    user_id = outcome.value
    color = 0
    for stream_id in orjson.loads(row["stream_ids"]):
        stream = stream_queries.stream_by_id(conn, row["realm_id"], stream_id)
        if stream is None or stream["deactivated"]:
            continue
        if stream_queries.active_subscription(conn, user_id, stream_id) is not None:
            continue
        conn.execute(
            sa.insert(schema.subscription).values(
                user_id=user_id,
                stream_id=stream_id,
                color=STREAM_COLORS[color % len(STREAM_COLORS)],
            )
        )
        color += 1
        peers = [u for u in stream_queries.stream_audience_ids(conn, stream) if u != user_id]
        event = {
            "type": "subscription",
            "op": "peer_add",
            "stream_ids": [stream_id],
            "user_ids": [user_id],
        }
        outcome.notices.append(Notice(event, peers))
    if row["email"] is not None:
        conn.execute(sa.update(schema.invitation).where(I.id == row["id"]).values(status=USED))
    outcome.notices.append(_notice(conn, row["realm_id"], row["invited_by_id"]))
    outcome.notices.extend(welcome_new_user(conn, row["realm_id"], user_id))
    return outcome
