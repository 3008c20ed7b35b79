"""Categories and their members, for `Special:Categories` and the category pages.

Members are read from the (category, type, sortkey) index in MediaWiki's order: subcategories,
pages and files each apart, by sort key, a page of them at a time with the key to go on from.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

CL = schema.categorylinks
P = schema.page


@dataclass(frozen=True)
class MemberPage:
    """One page of one kind of member, and the sort keys of the pages around it."""

    rows: list[Row]
    next_from: str | None  # the sort key the following page starts at
    has_previous: bool


def members(
    conn: Conn, category: str, kind: str, start: str | None, before: str | None, limit: int
) -> MemberPage:
    """The members of `kind` ("subcat", "page" or "file") of `category` (a database key), from
    sort key `start` onwards, or the `limit` before sort key `before` (a "previous" link)."""
    base = (
        sa.select(P.c.page_id, P.c.page_namespace, P.c.page_title, CL.c.cl_sortkey)
        .select_from(CL.join(P, P.c.page_id == CL.c.cl_from))
        .where(CL.c.cl_to == category, CL.c.cl_type == kind)
    )
    if before is not None:
        query = base.where(CL.c.cl_sortkey < before).order_by(
            CL.c.cl_sortkey.desc(), CL.c.cl_from.desc()
        )
        rows = list(reversed(conn.all(query.limit(limit + 1))))
        has_previous = len(rows) > limit
        rows = rows[-limit:] if has_previous else rows
        return MemberPage(rows, before, has_previous)
    query = base.order_by(CL.c.cl_sortkey, CL.c.cl_from)
    if start is not None:
        query = query.where(CL.c.cl_sortkey >= start)
    rows = conn.all(query.limit(limit + 1))
    following = str(rows[limit]["cl_sortkey"]) if len(rows) > limit else None
    earlier = False
    if start is not None:
        earlier = conn.one(base.where(CL.c.cl_sortkey < start).limit(1)) is not None
    return MemberPage(rows[:limit], following, earlier)


def member_count(conn: Conn, category: str, kind: str) -> int:
    query = (
        sa.select(sa.func.count())
        .select_from(CL)
        .where(CL.c.cl_to == category, CL.c.cl_type == kind)
    )
    return int(conn.scalar(query) or 0)


def member_counts(conn: Conn, categories: list[str]) -> dict[str, int]:
    """How many members each of these categories (dbkeys) has; those without any are absent."""
    if not categories:
        return {}
    query = (
        sa.select(CL.c.cl_to, sa.func.count())
        .where(CL.c.cl_to.in_(categories))
        .group_by(CL.c.cl_to)
    )
    return {str(name): int(count) for name, count in conn.tuples(query)}


def all_categories(conn: Conn, start: str | None, limit: int) -> list[tuple[str, int]]:
    """Categories that have members, in name order from `start`, with their member counts."""
    query = sa.select(CL.c.cl_to, sa.func.count()).group_by(CL.c.cl_to).order_by(CL.c.cl_to)
    if start:
        query = query.where(CL.c.cl_to >= start)
    return [(str(name), int(count)) for name, count in conn.tuples(query.limit(limit))]


def member_titles(conn: Conn, category: str, limit: int) -> list[tuple[int, str]]:
    """(namespace, title key) of the first `limit` members of `category` of every kind, in the
    category's order: `Special:Export`'s "Add pages from category"."""
    query = (
        sa.select(P.c.page_namespace, P.c.page_title)
        .select_from(CL.join(P, P.c.page_id == CL.c.cl_from))
        .where(CL.c.cl_to == category)
        .order_by(CL.c.cl_sortkey, CL.c.cl_from)
        .limit(limit)
    )
    return [(int(ns), str(title)) for ns, title in conn.tuples(query)]
