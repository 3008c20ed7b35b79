"""The rows of `Special:RecentChanges`: recent changes newest first, with the filters the page
offers (namespace, hide minor edits, bots or one user's edits, a time window).

The same table and joins as the API's `list=recentchanges`; what a row may show (a hidden user,
summary or log action) is decided by the page from `rc_deleted`, as the API does.
"""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

RC = schema.recentchanges
A = schema.actor
C = schema.comment

DELETED_TEXT = 1  # DELETED_ACTION for a log row
DELETED_COMMENT = 2
DELETED_USER = 4
DELETED_RESTRICTED = 8


def recent_changes(
    conn: Conn,
    *,
    since: str,
    limit: int,
    namespace: int | None = None,
    hide_minor: bool = False,
    hide_bots: bool = False,
    hide_actor: str | None = None,
    only_actor: str | None = None,
    only_new: bool = False,
) -> list[Row]:
    """At most `limit` changes made at or after `since` (a 14-digit timestamp), newest first.
    Log rows whose action is deleted are left out: no reader of the pages may see them."""
    query = (
        sa.select(RC, A.c.actor_name, A.c.actor_user, C.c.comment_text)
        .select_from(
            RC.join(A, A.c.actor_id == RC.c.rc_actor).join(C, C.c.comment_id == RC.c.rc_comment_id)
        )
        .where(RC.c.rc_timestamp >= since, RC.c.rc_type.in_((0, 1, 3)))
        .where(sa.or_(RC.c.rc_type != 3, RC.c.rc_deleted.op("&")(DELETED_TEXT) == 0))
    )
    if namespace is not None:
        query = query.where(RC.c.rc_namespace == namespace)
    if hide_minor:
        query = query.where(RC.c.rc_minor == sa.false())
    if hide_bots:
        query = query.where(RC.c.rc_bot == sa.false())
    if hide_actor is not None:
        query = query.where(A.c.actor_name != hide_actor)
    if only_actor is not None:
        # A hidden user's rows are not found by their name (ContribsPager's rev_deleted check).
        query = query.where(
            A.c.actor_name == only_actor, RC.c.rc_deleted.op("&")(DELETED_USER) == 0
        )
    if only_new:
        query = query.where(RC.c.rc_type == 1)
    query = query.order_by(RC.c.rc_timestamp.desc(), RC.c.rc_id.desc()).limit(limit)
    return conn.all(query)
