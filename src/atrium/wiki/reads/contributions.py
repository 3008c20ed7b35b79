"""One user's edits for `Special:Contributions`, newest first: revisions whose user is not
hidden (ContribsPager leaves out a revision with the user deleted), with their page and summary."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

R = schema.revision
P = schema.page
A = schema.actor
C = schema.comment
DELETED_USER = 4


def contributions(conn: Conn, name: str, namespace: int | None, limit: int) -> list[Row]:
    query = (
        sa.select(
            R.c.rev_id,
            R.c.rev_timestamp,
            R.c.rev_minor_edit,
            R.c.rev_len,
            R.c.rev_parent_id,
            R.c.rev_deleted,
            P.c.page_namespace,
            P.c.page_title,
            P.c.page_latest,
            C.c.comment_text,
        )
        .select_from(
            R.join(A, A.c.actor_id == R.c.rev_actor)
            .join(P, P.c.page_id == R.c.rev_page)
            .join(C, C.c.comment_id == R.c.rev_comment_id)
        )
        .where(A.c.actor_name == name, R.c.rev_deleted.op("&")(DELETED_USER) == 0)
    )
    if namespace is not None:
        query = query.where(P.c.page_namespace == namespace)
    return conn.all(query.order_by(R.c.rev_timestamp.desc(), R.c.rev_id.desc()).limit(limit))
