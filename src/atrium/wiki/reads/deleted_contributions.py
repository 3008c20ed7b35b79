"""One user's deleted edits for `Special:DeletedContributions` (DeletedContribsPager): the
archived revisions whose author is the user, newest first, optionally of one namespace."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

AR = schema.archive
A = schema.actor
C = schema.comment


def deleted_contributions(
    conn: Conn, name: str, namespace: int | None, limit: int, before: str | None
) -> list[Row]:
    """At most `limit` rows older than `before` (a 14-digit timestamp) when given."""
    query = (
        sa.select(
            AR.c.ar_rev_id,
            AR.c.ar_namespace,
            AR.c.ar_title,
            AR.c.ar_timestamp,
            AR.c.ar_minor_edit,
            AR.c.ar_len,
            AR.c.ar_deleted,
            AR.c.ar_parent_id,
            C.c.comment_text,
        )
        .join(A, A.c.actor_id == AR.c.ar_actor)
        .join(C, C.c.comment_id == AR.c.ar_comment_id)
        .where(A.c.actor_name == name)
    )
    if namespace is not None:
        query = query.where(AR.c.ar_namespace == namespace)
    if before is not None:
        query = query.where(AR.c.ar_timestamp < before)
    return conn.all(query.order_by(AR.c.ar_timestamp.desc(), AR.c.ar_rev_id.desc()).limit(limit))
