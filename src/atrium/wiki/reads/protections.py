"""The lists of `Special:ProtectedPages` (pages with a protection in force, by type and level)
and `Special:ProtectedTitles` (missing titles protected from creation), and of `Special:Tags`
(the change tags with their use counts)."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

P = schema.page
PR = schema.page_restrictions
PT = schema.protected_titles
U = schema.user
B = schema.ipblocks
C = schema.comment


def _live(expiry: sa.ColumnElement[str | None], now: str) -> sa.ColumnElement[bool]:
    return sa.or_(expiry.is_(None), expiry == "infinity", expiry > now)


def protected_pages(
    conn: Conn, ns: int | None, kind: str, level: str, offset: int, limit: int, now: str
) -> list[Row]:
    """Up to `limit` + 1 protections in force, newest pages' first by id."""
    query = (
        sa.select(
            P.c.page_namespace,
            P.c.page_title,
            PR.c.pr_type,
            PR.c.pr_level,
            PR.c.pr_expiry,
            PR.c.pr_cascade,
            PR.c.pr_id,
        )
        .select_from(PR.join(P, P.c.page_id == PR.c.pr_page))
        .where(PR.c.pr_type == kind, PR.c.pr_level != "", _live(PR.c.pr_expiry, now))
    )
    if ns is not None:
        query = query.where(P.c.page_namespace == ns)
    if level:
        query = query.where(PR.c.pr_level == level)
    return conn.all(query.order_by(PR.c.pr_id.desc()).offset(offset).limit(limit + 1))


def protected_titles(
    conn: Conn, ns: int | None, level: str, offset: int, limit: int, now: str
) -> list[Row]:
    """Up to `limit` + 1 creation protections in force, newest first, with who set them (and
    whether a `hidename` block hides that user) and why."""
    hidden = sa.exists().where(B.c.ipb_user == PT.c.pt_user, B.c.ipb_deleted == sa.true())
    query = (
        sa.select(
            PT.c.pt_namespace,
            PT.c.pt_title,
            PT.c.pt_expiry,
            PT.c.pt_create_perm,
            PT.c.pt_timestamp,
            U.c.user_name,
            C.c.comment_text,
            hidden.label("user_hidden"),
        )
        .select_from(
            PT.outerjoin(U, U.c.user_id == PT.c.pt_user).outerjoin(
                C, C.c.comment_id == PT.c.pt_reason_id
            )
        )
        .where(_live(PT.c.pt_expiry, now))
    )
    if ns is not None:
        query = query.where(PT.c.pt_namespace == ns)
    if level:
        query = query.where(PT.c.pt_create_perm == level)
    return conn.all(
        query.order_by(PT.c.pt_timestamp.desc(), PT.c.pt_title).offset(offset).limit(limit + 1)
    )


def tag_counts(conn: Conn) -> list[Row]:
    ctd = schema.change_tag_def
    return conn.all(
        sa.select(ctd.c.ctd_name, ctd.c.ctd_count, ctd.c.ctd_user_defined).order_by(ctd.c.ctd_name)
    )
