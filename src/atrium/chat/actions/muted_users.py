"""POST/DELETE /users/me/muted_users/{id}.

Muting marks the muted user's messages the muter had not read as read (with the
`update_message_flags` event), and later ones arrive read (chat.actions.messages), as in Zulip.
"""

from __future__ import annotations

import time

import sqlalchemy as sa

from atrium.chat import flags, schema
from atrium.chat.errors import ChatError, no_such_user
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries.muted_users import muted_user_dicts
from atrium.chat.queries.users import user_row
from atrium.core.db import Conn

MU = schema.muted_user.c
M = schema.message.c
UM = schema.user_message.c


def _target(conn: Conn, user: User, muted_id: int) -> None:
    if muted_id == user.id:
        raise ChatError("Cannot mute self")
    if user_row(conn, user.realm_id, muted_id) is None:
        raise no_such_user()


def _event(conn: Conn, user: User) -> Notice:
    return Notice(
        {"type": "muted_users", "muted_users": muted_user_dicts(conn, user.id)}, [user.id]
    )


def mute_user(conn: Conn, user: User, muted_id: int) -> Outcome[None]:
    _target(conn, user, muted_id)
    exists = conn.one(
        sa.select(MU.user_id).where(MU.user_id == user.id, MU.muted_user_id == muted_id)
    )
    if exists is not None:
        raise ChatError("User already muted")
    now = time.time()
    conn.execute(
        sa.insert(schema.muted_user).values(user_id=user.id, muted_user_id=muted_id, date_muted=now)
    )
    unread = [
        int(m)
        for m in conn.scalars(
            sa.select(UM.message_id)
            .join(schema.message, M.id == UM.message_id)
            .where(
                UM.user_id == user.id,
                M.sender_id == muted_id,
                UM.flags.op("&")(flags.READ) == 0,
            )
            .order_by(UM.message_id)
        )
    ]
    notices = [_event(conn, user)]
    if unread:
        conn.execute(
            sa.update(schema.user_message)
            .where(UM.user_id == user.id, UM.message_id.in_(unread))
            .values(flags=UM.flags.op("|")(flags.READ))
        )
        flag_event = {
            "type": "update_message_flags",
            "op": "add",
            "operation": "add",
            "flag": "read",
            "messages": unread,
            "all": False,
        }
        notices.append(Notice(flag_event, [user.id]))
    return Outcome(None, notices)


def unmute_user(conn: Conn, user: User, muted_id: int) -> Outcome[None]:
    _target(conn, user, muted_id)
    deleted = conn.execute(
        sa.delete(schema.muted_user).where(MU.user_id == user.id, MU.muted_user_id == muted_id)
    ).rowcount
    if not deleted:
        raise ChatError("User is not muted")
    return Outcome(None, [_event(conn, user)])
