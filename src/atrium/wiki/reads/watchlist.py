"""A user's watchlist: the watched titles (subject pages; each watch covers the talk page too),
and the recent changes to them for `Special:Watchlist`."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

WL = schema.watchlist
RC = schema.recentchanges
A = schema.actor
C = schema.comment


def watched_titles(conn: Conn, user_id: int) -> list[tuple[int, str]]:
    """(namespace, key) of the subject pages watched, in namespace and title order."""
    query = (
        sa.select(WL.c.wl_namespace, WL.c.wl_title)
        .where(WL.c.wl_user == user_id, WL.c.wl_namespace.op("%")(2) == 0)
        .order_by(WL.c.wl_namespace, WL.c.wl_title)
    )
    return [(int(ns), str(key)) for ns, key in conn.tuples(query)]


def watched_changes(
    conn: Conn, user_id: int, since: str, limit: int, hide_minor: bool, hide_bots: bool
) -> list[Row]:
    """Recent changes to watched pages, newest first (log rows with a deleted action left out)."""
    query = (
        sa.select(RC, A.c.actor_name, A.c.actor_user, C.c.comment_text)
        .select_from(
            RC.join(A, A.c.actor_id == RC.c.rc_actor)
            .join(C, C.c.comment_id == RC.c.rc_comment_id)
            .join(
                WL,
                sa.and_(
                    WL.c.wl_user == user_id,
                    WL.c.wl_namespace == RC.c.rc_namespace,
                    WL.c.wl_title == RC.c.rc_title,
                ),
            )
        )
        .where(RC.c.rc_timestamp >= since, RC.c.rc_type.in_((0, 1, 3)))
        .where(sa.or_(RC.c.rc_type != 3, RC.c.rc_deleted.op("&")(1) == 0))
    )
    if hide_minor:
        query = query.where(RC.c.rc_minor == sa.false())
    if hide_bots:
        query = query.where(RC.c.rc_bot == sa.false())
    return conn.all(query.order_by(RC.c.rc_timestamp.desc(), RC.c.rc_id.desc()).limit(limit))
