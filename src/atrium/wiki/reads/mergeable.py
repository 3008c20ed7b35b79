"""The revisions `Special:MergeHistory` offers to merge (MergeHistoryPager): those of the source
page older than the destination's first revision, newest first, with author, summary, size and
deletion bits."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

R = schema.revision
A = schema.actor
C = schema.comment


def mergeable_revisions(
    conn: Conn, source_id: int, dest_id: int, limit: int, before: str | None = None
) -> list[Row]:
    """At most `limit` of them, older than `before` (a 14-digit timestamp) when given."""
    first_dest = conn.scalar(
        sa.select(sa.func.min(R.c.rev_timestamp)).where(R.c.rev_page == dest_id)
    )
    query = (
        sa.select(
            R.c.rev_id,
            R.c.rev_timestamp,
            R.c.rev_minor_edit,
            R.c.rev_len,
            R.c.rev_parent_id,
            R.c.rev_deleted,
            A.c.actor_name,
            C.c.comment_text,
        )
        .join(A, A.c.actor_id == R.c.rev_actor)
        .join(C, C.c.comment_id == R.c.rev_comment_id)
        .where(R.c.rev_page == source_id)
    )
    if first_dest is not None:
        query = query.where(R.c.rev_timestamp < first_dest)
    if before is not None:
        query = query.where(R.c.rev_timestamp < before)
    return conn.all(query.order_by(R.c.rev_timestamp.desc(), R.c.rev_id.desc()).limit(limit))
