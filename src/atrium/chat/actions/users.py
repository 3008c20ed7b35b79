"""Creating users and bots."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import orjson
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.realm import system_group_id
from atrium.chat.actions.streams import STREAM_COLORS
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import BOT_DEFAULT, SYSTEM_GROUPS
from atrium.chat.queries.users import (
    EMAIL_VISIBLE_TO_EVERYONE,
    Viewer,
    api_email,
    delivery_email_audiences,
    user_dict,
    user_row,
)
from atrium.core.db import Conn
from atrium.core.secrets import hash_password, new_api_key

# Loose on purpose, like Django's validate_email for the cases clients send.
EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
MAX_NAME_LENGTH = 100


@dataclass(frozen=True)
class NewUser:
    email: str
    full_name: str
    password: str | None = None
    # The password already hashed in the worker pool (off the event loop); wins over `password`.
    password_hash: str | None = None
    role: int = 400
    bot_owner_id: int | None = None
    bot_type: int | None = None
    timezone: str = ""
    # The domain of the stand-in API address, should the user's email_address_visibility (the
    # organization's default for new users) hide the real one: the server's host name.
    email_domain: str = "localhost"


def check_full_name(full_name: str) -> str:
    full_name = full_name.strip()
    if len(full_name) > MAX_NAME_LENGTH:
        raise ChatError("Name too long!")
    if len(full_name) < 2:
        raise ChatError("Name too short!")
    if any(ch in full_name for ch in '*`\\>"@') or any(ord(ch) < 32 for ch in full_name):
        raise ChatError("Invalid characters in name!")
    return full_name


def email_in_use(conn: Conn, realm_id: int, email: str) -> bool:
    """Whether someone has this address, as their API address or as their real one (hidden
    behind a stand-in by their email_address_visibility)."""
    U = schema.user.c
    lowered = email.lower()
    return (
        conn.scalar(
            sa.select(U.id).where(
                U.realm_id == realm_id,
                sa.or_(
                    sa.func.lower(U.email) == lowered, sa.func.lower(U.delivery_email) == lowered
                ),
            )
        )
        is not None
    )


def set_password_hash(conn: Conn, user_id: int, password_hash: str) -> None:
    """A new password, already hashed (the person's one password, changed elsewhere)."""
    conn.execute(
        sa.update(schema.user)
        .where(schema.user.c.id == user_id)
        .values(password_hash=password_hash)
    )


def create_user(conn: Conn, realm_id: int, new: NewUser) -> int:
    email = new.email.strip()
    if not EMAIL_RE.match(email):
        raise ChatError(f"Invalid email '{email}'")
    if email_in_use(conn, realm_id, email):
        raise ChatError(f"Email '{email}' already in use")
    full_name = check_full_name(new.full_name)
    is_bot = new.bot_owner_id is not None or new.bot_type is not None
    user_id: int = conn.scalar(
        sa.insert(schema.user)
        .values(
            realm_id=realm_id,
            email=email,
            delivery_email=email,
            full_name=full_name,
            password_hash=new.password_hash
            or (hash_password(new.password) if new.password else None),
            api_key=new_api_key(),
            role=new.role,
            is_bot=is_bot,
            bot_type=(new.bot_type or BOT_DEFAULT) if is_bot else None,
            bot_owner_id=new.bot_owner_id,
            timezone=new.timezone,
            date_joined=time.time(),
            **_realm_setting_defaults(conn, realm_id),
        )
        .returning(schema.user.c.id)
    )
    recipient_id = conn.scalar(
        sa.insert(schema.recipient)
        .values(type=schema.RECIPIENT_PERSONAL, type_id=user_id)
        .returning(schema.recipient.c.id)
    )
    values: dict[str, Any] = {"recipient_id": recipient_id}
    if is_bot:
        # Bots' addresses are public, whatever the organization's default (as Zulip).
        values["email_address_visibility"] = EMAIL_VISIBLE_TO_EVERYONE
    else:
        visibility = conn.scalar(
            sa.select(schema.user.c.email_address_visibility).where(schema.user.c.id == user_id)
        )
        values["email"] = api_email(user_id, email, visibility, new.email_domain)
    conn.execute(sa.update(schema.user).where(schema.user.c.id == user_id).values(values))
    for group_name, _description, roles, _subgroups in SYSTEM_GROUPS:
        if new.role in roles:
            conn.execute(
                sa.insert(schema.user_group_member).values(
                    user_group_id=system_group_id(conn, realm_id, group_name), user_id=user_id
                )
            )
    if not is_bot:
        subscribe_to_default_streams(conn, realm_id, user_id)
    return user_id


def _realm_setting_defaults(conn: Conn, realm_id: int) -> dict[str, Any]:
    """The settings the organization chose for new users (PATCH /realm/user_settings_defaults)."""
    R = schema.realm.c
    raw = conn.scalar(sa.select(R.user_settings_defaults).where(R.id == realm_id))
    chosen: dict[str, Any] = orjson.loads(raw or "{}")
    columns = {*schema.USER_SETTING_DEFAULTS, "enable_drafts_synchronization"}
    return {name: value for name, value in chosen.items() if name in columns}


def realm_user_add_notices(conn: Conn, realm_id: int, user_id: int) -> list[Notice]:
    """`realm_user` add events for a new (or reactivated) user: its real address only to those
    its email_address_visibility lets see it, null to the others."""
    row = user_row(conn, realm_id, user_id)
    allowed, denied = delivery_email_audiences(
        conn, realm_id, user_id, row["email_address_visibility"]
    )
    notices = []
    # The user as their own viewer sees their address: the record for everyone allowed.
    for audience, viewer in ((allowed, Viewer(user_id, row["role"])), (denied, None)):
        if audience:
            person = user_dict(row, client_gravatar=False, viewer=viewer)
            notices.append(Notice({"type": "realm_user", "op": "add", "person": person}, audience))
    return notices


def subscribe_to_default_streams(conn: Conn, realm_id: int, user_id: int) -> None:
    """New people start in the organization's default streams, as Zulip does."""
    D = schema.default_stream.c
    S = schema.stream.c
    stream_ids = conn.scalars(
        sa.select(D.stream_id)
        .join(schema.stream, S.id == D.stream_id)
        .where(D.realm_id == realm_id, S.deactivated.is_(False))
        .order_by(D.stream_id)
    )
    for index, stream_id in enumerate(stream_ids):
        conn.execute(
            sa.insert(schema.subscription).values(
                user_id=user_id,
                stream_id=stream_id,
                color=STREAM_COLORS[index % len(STREAM_COLORS)],
            )
        )


def add_user(conn: Conn, realm_id: int, new: NewUser) -> Outcome[int]:
    """POST /users: create the user and tell everyone (realm_user add, default-stream peers)."""
    from atrium.chat.queries import streams as stream_queries

    user_id = create_user(conn, realm_id, new)
    notices = realm_user_add_notices(conn, realm_id, user_id)
    for stream_id in conn.scalars(
        sa.select(schema.subscription.c.stream_id).where(
            schema.subscription.c.user_id == user_id, schema.subscription.c.active.is_(True)
        )
    ):
        stream = stream_queries.stream_by_id(conn, realm_id, stream_id)
        peers = [u for u in stream_queries.stream_audience_ids(conn, stream) if u != user_id]
        notices.append(
            Notice(
                {
                    "type": "subscription",
                    "op": "peer_add",
                    "stream_ids": [stream_id],
                    "user_ids": [user_id],
                },
                peers,
            )
        )
    return Outcome(user_id, notices)
