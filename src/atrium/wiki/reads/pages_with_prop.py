"""The pages that have a page property, for `Special:PagesWithProp`: the property names in use,
and one page of the pages with a name (SpecialPagesWithProp's query: newest page first unless
reversed, or by the property's value)."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

P = schema.page
PP = schema.page_props
MAX_NAMES = 500


def prop_names(conn: Conn) -> list[str]:
    """The distinct property names pages have, in name order."""
    query = sa.select(PP.c.pp_propname).distinct().order_by(PP.c.pp_propname).limit(MAX_NAMES)
    return [str(name) for name in conn.scalars(query)]


def pages_with_prop(
    conn: Conn,
    name: str,
    ns: int | None,
    *,
    reverse: bool,
    by_value: bool,
    offset: int,
    limit: int,
) -> list[Row]:
    """Up to `limit` + 1 pages (one more tells that a next page exists) with property `name`,
    from `offset`. The value orders as text: this schema keeps no numeric sort key."""
    query = (
        sa.select(P.c.page_id, P.c.page_namespace, P.c.page_title, PP.c.pp_value)
        .select_from(PP.join(P, P.c.page_id == PP.c.pp_page))
        .where(PP.c.pp_propname == name)
    )
    if ns is not None:
        query = query.where(P.c.page_namespace == ns)
    keys = [PP.c.pp_value, P.c.page_id] if by_value else [P.c.page_id]
    query = query.order_by(*(key.asc() if reverse else key.desc() for key in keys))
    return conn.all(query.offset(offset).limit(limit + 1))
