"""DELETE /users/me and PATCH /users/me/subscriptions: changes a user makes to their own account."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.streams import StreamOptions, subscribe
from atrium.chat.actions.subscriptions import remove_subscriptions
from atrium.chat.actions.user_admin import _removal_notices, is_last_owner
from atrium.chat.errors import ChatError
from atrium.chat.events import Outcome
from atrium.chat.models import User
from atrium.core.db import Conn

U = schema.user.c


def deactivate_own_account(conn: Conn, actor: User) -> Outcome[None]:
    """The user and the bots they own stop working; the last owner (or user) cannot leave."""
    others = conn.scalar(
        sa.select(sa.func.count()).where(
            U.realm_id == actor.realm_id, U.is_active.is_(True), U.is_bot.is_(False)
        )
    )
    if int(others or 0) <= 1:
        raise ChatError(
            "Cannot deactivate the only user.",
            "CANNOT_DEACTIVATE_LAST_USER",
            is_last_owner=False,
            entity="user",
        )
    if actor.is_owner and is_last_owner(conn, actor):
        raise ChatError(
            "Cannot deactivate the only organization owner",
            "CANNOT_DEACTIVATE_LAST_USER",
            is_last_owner=True,
            entity="organization owner",
        )
    bots = [
        User.from_row(row)
        for row in conn.all(
            sa.select(schema.user).where(U.bot_owner_id == actor.id, U.is_active.is_(True))
        )
    ]
    affected = [actor, *bots]
    conn.execute(
        sa.update(schema.user).where(U.id.in_([u.id for u in affected])).values(is_active=False)
    )
    notices = []
    for user in affected:
        notices.extend(_removal_notices(conn, user))
    return Outcome(None, notices)


def update_own_subscriptions(
    conn: Conn, actor: User, add: list[dict[str, Any]], delete: list[str]
) -> Outcome[dict[str, Any]]:
    """Add and remove in one transaction, answered as Zulip's two responses merged."""
    if not add and not delete:
        raise ChatError('Nothing to do. Specify at least one of "add" or "delete".')
    data: dict[str, Any] = {
        "subscribed": {},
        "already_subscribed": {},
        "removed": [],
        "not_removed": [],
    }
    notices = []
    if add:
        for spec in add:
            if "name" not in spec:
                raise ChatError("add[0] is missing 'name'")
        added = subscribe(conn, actor, add, None, StreamOptions(), True)
        data["subscribed"] = added.value.subscribed
        data["already_subscribed"] = added.value.already_subscribed
        notices += added.notices
    if delete:
        removed = remove_subscriptions(conn, actor, delete, None)
        data["removed"] = removed.value.removed
        data["not_removed"] = removed.value.not_removed
        notices += removed.notices
    return Outcome(data, notices)
