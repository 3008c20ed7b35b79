"""The external links that start with a LinkFilter index prefix, for `Special:LinkSearch`:
each link with the page it is on, in index order, one page of them at a time."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

P = schema.page
EL = schema.externallinks


def _starts_with(column: Any, prefix: str) -> Any:
    """A case-sensitive prefix match (SQLite's LIKE ignores case), as a range an index walks."""
    return sa.and_(
        column >= prefix,
        column < prefix + "\U0010ffff",
        sa.func.substr(column, 1, len(prefix)) == prefix,
    )


def linked_urls(conn: Conn, prefix: str, ns: int | None, offset: int, limit: int) -> list[Row]:
    """Up to `limit` + 1 links (one more tells that a next page exists) whose index starts with
    `prefix`, from `offset`, with their pages; only pages of `ns` when it is given."""
    query = (
        sa.select(EL.c.el_to, P.c.page_namespace, P.c.page_title)
        .select_from(EL.join(P, P.c.page_id == EL.c.el_from))
        .where(_starts_with(EL.c.el_index_60, prefix[:60]))
        # el_index holds the whole index: the exact comparison past its first 60 characters.
        .where(sa.func.substr(EL.c.el_index, 1, len(prefix)) == prefix)
    )
    if ns is not None:
        query = query.where(P.c.page_namespace == ns)
    query = query.order_by(EL.c.el_index_60, EL.c.el_id)
    return conn.all(query.offset(offset).limit(limit + 1))
