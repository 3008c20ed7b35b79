"""Log entries for `Special:Log`, newest first, by type, performer and page, and by what they
are about (`log_search`). Entries whose action is deleted, and the suppression log, are left out
unless the reader may see them; entries whose performer is hidden are not found by that
performer's name (LogPager's conditions)."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

L = schema.logging
LS = schema.log_search
A = schema.actor
C = schema.comment
DELETED_ACTION = 1
DELETED_USER = 4
DELETED_RESTRICTED = 8


def log_entries(
    conn: Conn,
    *,
    log_type: str | None,
    performer: str | None,
    page: tuple[int, str] | None,
    see_deleted: bool,
    see_suppressed: bool,
    suppression_log: bool,
    limit: int,
    log_id: int | None = None,
    action: str | None = None,
    related: tuple[str, Sequence[str]] | None = None,
) -> list[Row]:
    """`see_deleted`: the reader has `deletedhistory`; `see_suppressed`: `viewsuppressed`;
    `suppression_log`: `suppressionlog`; `log_id`: that entry alone (`Special:Log?logid=`);
    `related`: (field, values) of `log_search`, the entries about any of those values."""
    query = sa.select(L, A.c.actor_name, C.c.comment_text).select_from(
        L.join(A, A.c.actor_id == L.c.log_actor).join(C, C.c.comment_id == L.c.log_comment_id)
    )
    if log_type:
        query = query.where(L.c.log_type == log_type)
    if log_id is not None:
        query = query.where(L.c.log_id == log_id)
    if action is not None:
        query = query.where(L.c.log_action == action)
    if related is not None:
        field, values = related
        about = sa.select(LS.c.ls_log_id).where(
            LS.c.ls_field == field, LS.c.ls_value.in_(list(values))
        )
        query = query.where(L.c.log_id.in_(about))
    if not suppression_log:
        query = query.where(L.c.log_type != "suppress")
    if performer is not None:
        query = query.where(A.c.actor_name == performer)
    for bit, used in ((DELETED_ACTION, True), (DELETED_USER, performer is not None)):
        if not used or see_suppressed:
            continue
        hidden = bit if not see_deleted else bit | DELETED_RESTRICTED
        query = query.where(L.c.log_deleted.op("&")(hidden) != hidden)
    if page is not None:
        query = query.where(L.c.log_namespace == page[0], L.c.log_title == page[1])
    return conn.all(query.order_by(L.c.log_timestamp.desc(), L.c.log_id.desc()).limit(limit))
