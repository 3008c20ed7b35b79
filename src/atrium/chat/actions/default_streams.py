"""Default streams: the public streams every new user is subscribed to."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError, must_be_admin
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.default_streams import default_stream_dicts
from atrium.chat.queries.users import active_non_guest_user_ids
from atrium.core.db import Conn

D = schema.default_stream.c


def default_stream_ids(conn: Conn, realm_id: int) -> list[int]:
    return conn.scalars(sa.select(D.stream_id).where(D.realm_id == realm_id))


def default_streams_notice(conn: Conn, realm_id: int) -> Notice:
    """The full list, to every active user who is not a guest (as Zulip sends it)."""
    return Notice(
        {"type": "default_streams", "default_streams": default_stream_dicts(conn, realm_id)},
        active_non_guest_user_ids(conn, realm_id),
    )


def add_default_stream(conn: Conn, actor: User, stream_id: int) -> Outcome[None]:
    if not actor.is_admin:
        raise must_be_admin()
    stream, _sub = stream_queries.stream_for_reading(
        conn, actor, stream_id, allow_realm_admin=False
    )
    if stream["invite_only"]:
        raise ChatError("Private streams cannot be made default.")
    exists = conn.scalar(
        sa.select(D.stream_id).where(D.realm_id == actor.realm_id, D.stream_id == stream_id)
    )
    if exists is None:
        conn.execute(
            sa.insert(schema.default_stream).values(realm_id=actor.realm_id, stream_id=stream_id)
        )
    return Outcome(None, [default_streams_notice(conn, actor.realm_id)])


def remove_default_stream(conn: Conn, actor: User, stream_id: int) -> Outcome[None]:
    if not actor.is_admin:
        raise must_be_admin()
    stream_queries.stream_for_reading(conn, actor, stream_id, allow_realm_admin=True)
    conn.execute(
        sa.delete(schema.default_stream).where(
            D.realm_id == actor.realm_id, D.stream_id == stream_id
        )
    )
    return Outcome(None, [default_streams_notice(conn, actor.realm_id)])
