"""`list=prefixsearch`: titles starting with the text, as TitlePrefixSearch; a generator that
pages by `psoffset`."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.params import (
    INTEGER,
    NAMESPACE,
    ModuleSpec,
    Param,
    limit,
)
from atrium.wiki.api.query.listing import prefixed
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.titles import InvalidTitle

P = schema.page


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], int | None]:
    """TitlePrefixSearch: titles starting with the text, in each namespace, in title order."""
    text = params["search"]
    limit, offset = params["limit"], max(0, params["offset"])
    parser = q.ctx.site.parser
    namespaces = list(params["namespace"])
    try:
        parsed = parser.parse(text) if text.strip() else None
    except InvalidTitle:
        return [], None
    if parsed is not None and parsed.ns != 0:
        namespaces, key = [parsed.ns], parsed.dbkey
    else:
        key = parsed.dbkey if parsed is not None else ""
        if text.endswith(" "):
            key += "_"

    def read(conn: Conn) -> list[Row]:
        escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return conn.all(
            sa.select(P.c.page_id, P.c.page_namespace, P.c.page_title)
            .where(
                P.c.page_namespace.in_(namespaces),
                P.c.page_title.like(escaped + "%", escape="\\"),
            )
            .order_by(P.c.page_namespace, P.c.page_title)
            .limit(limit + 1)
            .offset(offset)
        )

    rows = await q.ctx.db.read(read)
    following = offset + limit if len(rows) > limit else None
    return rows[:limit], following


PREFIXSEARCH = ModuleSpec(
    "prefixsearch",
    "ApiQueryPrefixSearch",
    "list",
    "ps",
    (
        Param("search", required=True),
        Param("namespace", NAMESPACE, default=0, multi=True, allspecifier="*"),
        limit(),
        Param("offset", INTEGER, default=0),
    ),
    generator=True,
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, following = await _rows(q, params)
    q.data["prefixsearch"] = [
        {
            "ns": int(r["page_namespace"]),
            "title": prefixed(q, int(r["page_namespace"]), str(r["page_title"])),
            "pageid": int(r["page_id"]),
        }
        for r in rows
    ]
    if following is not None:
        q.continuation.add(PREFIXSEARCH, "offset", following)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, following = await _rows(q, params)
    if following is not None:
        q.continuation.add_generator(PREFIXSEARCH, "offset", following)
    offset = max(0, params["offset"])
    ids = [int(r["page_id"]) for r in rows]
    return GeneratedPages(
        page_ids=ids, extra={pid: {"index": offset + i + 1} for i, pid in enumerate(ids)}
    )


MODULE = QueryModule(PREFIXSEARCH, run, generate)
