"""The recent changes of `Special:RecentChangesLinked`: changes to the pages a page links to
(or, with `showlinkedto`, to the pages linking to it), in the rows recent changes lists read."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

RC = schema.recentchanges
A = schema.actor
C = schema.comment
PL = schema.pagelinks
P = schema.page
DELETED_TEXT = 1


def linked_changes(
    conn: Conn, page_id: int, ns: int, dbkey: str, linked_to: bool, since: str, limit: int
) -> list[Row]:
    if linked_to:
        linked = sa.exists().where(
            PL.c.pl_namespace == ns, PL.c.pl_title == dbkey, PL.c.pl_from == RC.c.rc_cur_id
        )
    else:
        linked = sa.exists().where(
            PL.c.pl_from == page_id,
            PL.c.pl_namespace == RC.c.rc_namespace,
            PL.c.pl_title == RC.c.rc_title,
        )
    query = (
        sa.select(RC, A.c.actor_name, A.c.actor_user, C.c.comment_text)
        .select_from(
            RC.join(A, A.c.actor_id == RC.c.rc_actor).join(C, C.c.comment_id == RC.c.rc_comment_id)
        )
        .where(RC.c.rc_timestamp >= since, RC.c.rc_type.in_((0, 1, 3)), linked)
        .where(sa.or_(RC.c.rc_type != 3, RC.c.rc_deleted.op("&")(DELETED_TEXT) == 0))
    )
    return conn.all(query.order_by(RC.c.rc_timestamp.desc(), RC.c.rc_id.desc()).limit(limit))
