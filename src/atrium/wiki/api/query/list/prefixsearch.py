"""`list=prefixsearch`: titles starting with the text, as TitlePrefixSearch; a generator that
pages by `psoffset`."""

from __future__ import annotations

from typing import Any

from atrium.core.db import Row
from atrium.wiki.api.params import (
    INTEGER,
    NAMESPACE,
    ModuleSpec,
    Param,
    limit,
)
from atrium.wiki.api.query.listing import prefixed
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.reads.prefix_search import prefix_matches


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], int | None]:
    limit, offset = params["limit"], max(0, params["offset"])
    rows = await q.ctx.db.read(
        prefix_matches,
        q.ctx.site.parser,
        params["search"],
        list(params["namespace"]),
        limit,
        offset,
    )
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
