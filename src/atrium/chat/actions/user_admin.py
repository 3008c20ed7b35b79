"""Administering users: deactivate, reactivate, change a user's name or role.

Events are feature level 185's: a deactivation is `realm_user` remove (8.0 turned it into an
update with `is_active`), a reactivation `realm_user` add, a change `realm_user` update.
"""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.realm import system_group_id
from atrium.chat.actions.users import check_full_name, realm_user_add_notices
from atrium.chat.errors import ChatError, must_be_admin, must_be_owner, no_such_user
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import ROLE_NAMES, ROLE_OWNER, SYSTEM_GROUPS, User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.users import active_user_ids, admin_user_ids, user_row
from atrium.core.db import Conn

U = schema.user.c
ROLES = tuple(sorted(ROLE_NAMES.values()))
MAX_DEACTIVATION_COMMENT_LENGTH = 2000


def target_user(
    conn: Conn, actor: User, user_id: int, *, allow_deactivated: bool, allow_bots: bool
) -> User:
    """Zulip's `access_user_by_id(..., for_admin=True)`."""
    row = user_row(conn, actor.realm_id, user_id)
    if row is None:
        raise no_such_user()
    target = User.from_row(row)
    if target.is_bot and not allow_bots:
        raise no_such_user()
    if not target.is_active and not allow_deactivated:
        raise ChatError("User is deactivated")
    if not (actor.is_admin or target.bot_owner_id == actor.id):
        raise ChatError("Insufficient permission")
    return target


def is_last_owner(conn: Conn, user: User) -> bool:
    if not user.is_owner:
        return False
    owners = conn.scalar(
        sa.select(sa.func.count()).where(
            U.realm_id == user.realm_id,
            U.role == ROLE_OWNER,
            U.is_active.is_(True),
            U.is_bot.is_(False),
        )
    )
    return int(owners or 0) <= 1


def _removal_notices(conn: Conn, user: User) -> list[Notice]:
    person = {"user_id": user.id, "full_name": user.full_name}
    notices = [
        Notice(
            {"type": "realm_user", "op": "remove", "person": person},
            active_user_ids(conn, user.realm_id),
        )
    ]
    if user.is_bot:
        audience = set(admin_user_ids(conn, user.realm_id))
        if user.bot_owner_id is not None:
            audience.add(user.bot_owner_id)
        notices.append(
            Notice({"type": "realm_bot", "op": "remove", "bot": person}, sorted(audience))
        )
    return notices


def deactivation_email(conn: Conn, user: User, comment: str) -> None:
    """Queue the notice Zulip mails to a deactivated user, with the administrator's comment."""
    realm = load_realm(conn, user.realm_id)
    row = user_row(conn, user.realm_id, user.id)
    body = f"Your account on {realm.name} has been deactivated."
    if comment:
        body += f"\n\nThe administrator provided the following comment:\n\n{comment}"
    conn.execute(
        sa.insert(schema.outgoing_email).values(
            realm_id=user.realm_id,
            user_id=user.id,
            to_address=row["delivery_email"],
            template="deactivate",
            subject=f"Your account on {realm.name} has been deactivated",
            body=body,
            created=time.time(),
        )
    )


def deactivate_user(conn: Conn, actor: User, user_id: int, comment: str | None) -> Outcome[None]:
    """DELETE /users/{id}: the user and the bots they own stop working at once."""
    target = target_user(conn, actor, user_id, allow_deactivated=False, allow_bots=False)
    if not actor.is_admin:
        raise ChatError("Insufficient permission")
    if target.is_owner and not actor.is_owner:
        raise must_be_owner()
    if is_last_owner(conn, target):
        raise ChatError("Cannot deactivate the only organization owner", code=None)
    bots = [
        User.from_row(row)
        for row in conn.all(
            sa.select(schema.user).where(U.bot_owner_id == target.id, U.is_active.is_(True))
        )
    ]
    affected = [target, *bots]
    conn.execute(
        sa.update(schema.user).where(U.id.in_([u.id for u in affected])).values(is_active=False)
    )
    if comment is not None:
        deactivation_email(conn, target, comment)
    notices: list[Notice] = []
    for user in affected:
        notices.extend(_removal_notices(conn, user))
    return Outcome(None, notices)


def reactivate_user(conn: Conn, actor: User, user_id: int) -> Outcome[None]:
    """POST /users/{id}/reactivate: administrators, and a bot's owner for the bot."""
    target = target_user(conn, actor, user_id, allow_deactivated=True, allow_bots=True)
    if target.is_active:
        # Zulip 7 answers success and changes nothing.
        return Outcome(None)
    conn.execute(sa.update(schema.user).where(U.id == target.id).values(is_active=True))
    notices = realm_user_add_notices(conn, actor.realm_id, target.id)
    stream_ids = conn.scalars(
        sa.select(schema.subscription.c.stream_id).where(
            schema.subscription.c.user_id == target.id, schema.subscription.c.active.is_(True)
        )
    )
    for stream_id in stream_ids:
        stream = stream_queries.stream_by_id(conn, actor.realm_id, stream_id)
        if stream is None:
            continue
        peers = [
            uid for uid in stream_queries.stream_audience_ids(conn, stream) if uid != target.id
        ]
        notices.append(
            Notice(
                {
                    "type": "subscription",
                    "op": "peer_add",
                    "stream_ids": [stream_id],
                    "user_ids": [target.id],
                },
                peers,
            )
        )
    return Outcome(None, notices)


def _system_group_of(role: int) -> str:
    return next(name for name, _d, roles, _s in SYSTEM_GROUPS if role in roles)


def update_user(
    conn: Conn, actor: User, user_id: int, full_name: str | None, role: int | None
) -> Outcome[None]:
    """PATCH /users/{id}: an administrator changes a user's name or role.

    As in Zulip, a bot's owner may rename the bot; changing a role needs an administrator.
    """
    target = target_user(conn, actor, user_id, allow_deactivated=True, allow_bots=True)
    audience = active_user_ids(conn, actor.realm_id)
    notices: list[Notice] = []
    new_name = None
    if full_name is not None and full_name != target.full_name and full_name.strip() != "":
        new_name = check_full_name(full_name)
    if role is not None and role != target.role:
        if ROLE_OWNER in (role, target.role) and not actor.is_owner:
            raise must_be_owner()
        if not actor.is_admin:
            raise must_be_admin()
        if target.is_owner and is_last_owner(conn, target):
            raise ChatError(
                "The owner permission cannot be removed from the only organization owner."
            )
        conn.execute(sa.update(schema.user).where(U.id == target.id).values(role=role))
        old_group = system_group_id(conn, actor.realm_id, _system_group_of(target.role))
        new_group = system_group_id(conn, actor.realm_id, _system_group_of(role))
        M = schema.user_group_member.c
        conn.execute(
            sa.delete(schema.user_group_member).where(
                M.user_group_id == old_group, M.user_id == target.id
            )
        )
        conn.execute(
            sa.insert(schema.user_group_member).values(user_group_id=new_group, user_id=target.id)
        )
        notices.append(
            Notice(
                {
                    "type": "realm_user",
                    "op": "update",
                    "person": {"user_id": target.id, "role": role},
                },
                audience,
            )
        )
        for op, group_id in (("remove_members", old_group), ("add_members", new_group)):
            event: dict[str, Any] = {
                "type": "user_group",
                "op": op,
                "group_id": group_id,
                "user_ids": [target.id],
            }
            notices.append(Notice(event, audience))
    if new_name is not None:
        conn.execute(sa.update(schema.user).where(U.id == target.id).values(full_name=new_name))
        notices.append(
            Notice(
                {
                    "type": "realm_user",
                    "op": "update",
                    "person": {"user_id": target.id, "full_name": new_name},
                },
                audience,
            )
        )
    return Outcome(None, notices)
