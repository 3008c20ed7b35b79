"""The active blocks for `Special:BlockList`, newest first, optionally of one target; blocks that
hide their user (`hidename`) are left out for readers who may not see hidden users."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.timestamps import now14

B = schema.ipblocks
A = schema.actor
C = schema.comment


def active_blocks(conn: Conn, target: str | None, show_hidden: bool, limit: int) -> list[Row]:
    query = (
        sa.select(B, A.c.actor_name, C.c.comment_text)
        .join(A, A.c.actor_id == B.c.ipb_by_actor)
        .join(C, C.c.comment_id == B.c.ipb_reason_id)
        .where(sa.or_(B.c.ipb_expiry == "infinity", B.c.ipb_expiry > now14()))
        .where(B.c.ipb_auto.is_(False))
    )
    if target:
        query = query.where(B.c.ipb_address == target)
    if not show_hidden:
        query = query.where(B.c.ipb_deleted == sa.false())
    return conn.all(query.order_by(B.c.ipb_timestamp.desc(), B.c.ipb_id.desc()).limit(limit))


def autoblocks(conn: Conn, show_hidden: bool, limit: int, offset: int) -> list[Row]:
    """The active autoblocks (blocks made from a blocked user's address, `ipb_parent_block_id`
    set) for `Special:AutoblockList`, newest first; hidden ones only for `hideuser`."""
    query = (
        sa.select(B, A.c.actor_name, C.c.comment_text)
        .join(A, A.c.actor_id == B.c.ipb_by_actor)
        .join(C, C.c.comment_id == B.c.ipb_reason_id)
        .where(sa.or_(B.c.ipb_expiry == "infinity", B.c.ipb_expiry > now14()))
        .where(B.c.ipb_parent_block_id.is_not(None))
    )
    if not show_hidden:
        query = query.where(B.c.ipb_deleted == sa.false())
    ordered = query.order_by(B.c.ipb_timestamp.desc(), B.c.ipb_id.desc())
    return conn.all(ordered.limit(limit).offset(offset))


def autoblock_total(conn: Conn) -> int:
    """BlockListPager::getTotalAutoblocks: the unexpired automatic blocks."""
    query = (
        sa.select(sa.func.count())
        .select_from(B)
        .where(B.c.ipb_auto.is_(True))
        .where(sa.or_(B.c.ipb_expiry == "infinity", B.c.ipb_expiry >= now14()))
    )
    return int(conn.scalar(query) or 0)
