"""TitlePrefixSearch: the titles starting with a text, in each namespace, in title order; what
`list=prefixsearch` and `action=opensearch` both read."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.titles import InvalidTitle, TitleParser

P = schema.page


def prefix_matches(
    conn: Conn, parser: TitleParser, text: str, namespaces: list[int], limit: int, offset: int = 0
) -> list[Row]:
    """Up to `limit` + 1 pages (page_id, page_namespace, page_title), so that a caller can tell
    whether more follow; a text naming another namespace searches that one alone."""
    try:
        parsed = parser.parse(text) if text.strip() else None
    except InvalidTitle:
        return []
    if parsed is not None and parsed.ns != 0:
        namespaces, key = [parsed.ns], parsed.dbkey
    else:
        key = parsed.dbkey if parsed is not None else ""
        if text.endswith(" "):
            key += "_"
    escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return conn.all(
        sa.select(P.c.page_id, P.c.page_namespace, P.c.page_title, P.c.page_is_redirect)
        .where(
            P.c.page_namespace.in_(namespaces),
            P.c.page_title.like(escaped + "%", escape="\\"),
        )
        .order_by(P.c.page_namespace, P.c.page_title)
        .limit(limit + 1)
        .offset(offset)
    )


def current_texts(conn: Conn, page_ids: list[int]) -> dict[int, str]:
    """The current text of each page whose text is visible to everyone (a revision deletion
    hides it from suggestions as from every reader)."""
    if not page_ids:
        return {}
    rev, text = schema.revision, schema.text
    rows = conn.all(
        sa.select(P.c.page_id, text.c.old_text)
        .select_from(
            P.join(rev, rev.c.rev_id == P.c.page_latest).join(
                text, text.c.old_id == rev.c.rev_text_id
            )
        )
        .where(P.c.page_id.in_(page_ids), rev.c.rev_deleted.op("&")(1) == 0)
    )
    return {int(r["page_id"]): str(r["old_text"]) for r in rows}
