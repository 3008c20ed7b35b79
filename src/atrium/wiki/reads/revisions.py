"""Revision reads for `prop=revisions` beyond one page's history: the latest revisions of many pages
and requested revision ids in MediaWiki's order from a continuation point, a tag filter, and the
neighbours a `diffto` compares with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.reads.pages import P, R, _revision_select, tagged_revisions


def tag_id(conn: Conn, name: str) -> int | None:
    ctd = schema.change_tag_def
    value = conn.scalar(sa.select(ctd.c.ctd_id).where(ctd.c.ctd_name == name))
    return None if value is None else int(value)


def latest_of_pages(
    conn: Conn,
    page_ids: Sequence[int],
    *,
    with_text: bool,
    limit: int,
    cont: tuple[int, int] | None,
    tag: int | None,
) -> list[Row]:
    """Multi-page mode: each page's latest revision in (page, revision) order."""
    if not page_ids:
        return []
    query = (
        _revision_select(with_text)
        .join(P, sa.and_(P.c.page_id == R.c.rev_page, P.c.page_latest == R.c.rev_id))
        .where(R.c.rev_page.in_(list(page_ids)))
    )
    if cont is not None:
        query = query.where(
            sa.or_(R.c.rev_page > cont[0], sa.and_(R.c.rev_page == cont[0], R.c.rev_id >= cont[1]))
        )
    if tag is not None:
        query = query.where(R.c.rev_id.in_(tagged_revisions(tag)))
    return conn.all(query.order_by(R.c.rev_page, R.c.rev_id).limit(limit))


def by_ids(
    conn: Conn,
    revids: Sequence[int],
    *,
    with_text: bool,
    limit: int,
    cont: int | None,
    tag: int | None,
) -> list[Row]:
    """Revision-ids mode: the requested revisions in id order."""
    if not revids:
        return []
    query = _revision_select(with_text).where(R.c.rev_id.in_(list(revids)))
    if cont is not None:
        query = query.where(R.c.rev_id >= cont)
    if tag is not None:
        query = query.where(R.c.rev_id.in_(tagged_revisions(tag)))
    return conn.all(query.order_by(R.c.rev_id).limit(limit))


def _text_select() -> sa.Select[Any]:
    return sa.select(R.c.rev_id, R.c.rev_page, R.c.rev_deleted, schema.text.c.old_text).select_from(
        R.join(schema.text, schema.text.c.old_id == R.c.rev_text_id)
    )


def revision_text(conn: Conn, rev_id: int) -> Row | None:
    return conn.one(_text_select().where(R.c.rev_id == rev_id))


def neighbour(conn: Conn, page_id: int, ts: str, rev_id: int, later: bool) -> Row | None:
    """The page's revision just before (or after) the given one."""
    if later:
        cond = sa.or_(R.c.rev_timestamp > ts, sa.and_(R.c.rev_timestamp == ts, R.c.rev_id > rev_id))
        ordering: list[Any] = [R.c.rev_timestamp, R.c.rev_id]
    else:
        cond = sa.or_(R.c.rev_timestamp < ts, sa.and_(R.c.rev_timestamp == ts, R.c.rev_id < rev_id))
        ordering = [R.c.rev_timestamp.desc(), R.c.rev_id.desc()]
    return conn.one(
        _text_select().where(R.c.rev_page == page_id, cond).order_by(*ordering).limit(1)
    )


def latest_text(conn: Conn, page_id: int) -> Row | None:
    return conn.one(
        _text_select().join(P, P.c.page_latest == R.c.rev_id).where(P.c.page_id == page_id)
    )


def intermediate(conn: Conn, old_id: int, new_id: int, most: int) -> tuple[int, list[str], str]:
    """What lies between two revisions of one page (DifferenceEngine::getMultiNotice): how many
    revisions (counting at most 1001), their authors (at most `most` + 1 names), and the later
    revision's author. (0, [], "") for revisions of two pages or that are missing."""
    ends = conn.all(
        sa.select(R.c.rev_id, R.c.rev_page, R.c.rev_timestamp, schema.actor.c.actor_name)
        .select_from(R.join(schema.actor, schema.actor.c.actor_id == R.c.rev_actor))
        .where(R.c.rev_id.in_([old_id, new_id]))
    )
    by_id = {row["rev_id"]: row for row in ends}
    old, new = by_id.get(old_id), by_id.get(new_id)
    if old is None or new is None or old["rev_page"] != new["rev_page"]:
        return 0, [], ""
    if (old["rev_timestamp"], old["rev_id"]) > (new["rev_timestamp"], new["rev_id"]):
        old, new = new, old
    after_old = sa.or_(
        R.c.rev_timestamp > old["rev_timestamp"],
        sa.and_(R.c.rev_timestamp == old["rev_timestamp"], R.c.rev_id > old["rev_id"]),
    )
    before_new = sa.or_(
        R.c.rev_timestamp < new["rev_timestamp"],
        sa.and_(R.c.rev_timestamp == new["rev_timestamp"], R.c.rev_id < new["rev_id"]),
    )
    between = R.c.rev_page == new["rev_page"], after_old, before_new
    counted = sa.select(R.c.rev_id).where(*between).limit(1001).subquery()
    count = int(conn.scalar(sa.select(sa.func.count()).select_from(counted)) or 0)
    names = conn.all(
        sa.select(schema.actor.c.actor_name)
        .select_from(R.join(schema.actor, schema.actor.c.actor_id == R.c.rev_actor))
        .where(*between)
        .distinct()
        .limit(most + 1)
    )
    return count, [row["actor_name"] for row in names], str(new["actor_name"])
