"""`list=search`: full text or titles, MediaWiki's SQL search backend; a generator that pages by
`sroffset`."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema, search
from atrium.wiki.api.params import (
    BOOLEAN,
    INTEGER,
    NAMESPACE,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.listing import prefixed
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import InvalidTitle

P, R, T = schema.page, schema.revision, schema.text


def _latest(conn: Conn, ids: list[int]) -> dict[int, Row]:
    if not ids:
        return {}
    rows = conn.all(
        sa.select(P.c.page_id, R.c.rev_timestamp, T.c.old_text)
        .select_from(
            P.join(R, R.c.rev_id == P.c.page_latest).join(T, T.c.old_id == R.c.rev_text_id)
        )
        .where(P.c.page_id.in_(ids))
    )
    return {int(r["page_id"]): r for r in rows}


async def _near_match(q: QueryRun, text: str) -> list[Row]:
    """SearchNearMatcher: the page whose title is the query (as typed, or case-adjusted)."""
    parser = q.ctx.site.parser
    candidates = []
    for variant in dict.fromkeys((text, text.lower(), text.title(), text.upper())):
        try:
            title = parser.parse(variant)
        except InvalidTitle:
            continue
        if title.dbkey and not title.interwiki:
            candidates.append((title.ns, title.dbkey))

    def read(conn: Conn) -> list[Row]:
        for ns, dbkey in candidates:
            row = conn.one(
                sa.select(
                    P.c.page_id, P.c.page_namespace, P.c.page_title, P.c.page_len, P.c.page_latest
                ).where(P.c.page_namespace == ns, P.c.page_title == dbkey)
            )
            if row is not None:
                return [row]
        return []

    return await q.ctx.db.read(read)


async def _run_search(
    q: QueryRun, params: dict[str, Any], *, count: bool
) -> tuple[list[Row], int, dict[int, Row], int | None]:
    what = params["what"] or "title"
    limit, offset = params["limit"], max(0, params["offset"])
    namespaces = params["namespace"]
    if what == "nearmatch":
        rows = await _near_match(q, params["search"])
        latest = await q.ctx.db.read(_latest, [int(r["page_id"]) for r in rows])
        return rows, len(rows), latest, None
    text = params["search"]

    def read(conn: Conn) -> tuple[search.Hits, dict[int, Row]]:
        hits = search.search(
            conn,
            text,
            namespaces,
            titles_only=what == "title",
            limit=limit + 1,
            offset=offset,
            count=count,
        )
        return hits, _latest(conn, [int(r["page_id"]) for r in hits.rows[:limit]])

    hits, latest = await q.ctx.db.read(read)
    following = offset + limit if len(hits.rows) > limit else None
    return hits.rows[:limit], hits.total, latest, following


SEARCH = ModuleSpec(
    "search",
    "ApiQuerySearch",
    "list",
    "sr",
    (
        Param("search", required=True),
        Param("namespace", NAMESPACE, default=0, multi=True, allspecifier="*"),
        limit(default=10),
        Param("offset", INTEGER, default=0),
        Param("what", enum("nearmatch", "text", "title")),
        Param(
            "info",
            enum("rewrittenquery", "suggestion", "totalhits"),
            default="totalhits|suggestion|rewrittenquery",
            multi=True,
        ),
        Param(
            "prop",
            enum(
                "categorysnippet",
                "extensiondata",
                "isfilematch",
                "redirectsnippet",
                "redirecttitle",
                "sectionsnippet",
                "sectiontitle",
                "size",
                "snippet",
                "timestamp",
                "titlesnippet",
                "wordcount",
                "hasrelated",
                "score",
            ),
            default="size|wordcount|timestamp|snippet",
            multi=True,
            deprecatedvalues=("hasrelated", "score"),
        ),
        Param("interwiki", BOOLEAN),
        Param("enablerewrites", BOOLEAN),
        Param("sort", enum("relevance"), default="relevance"),
    ),
    generator=True,
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    info = set(params["info"])
    rows, total, latest, following = await _run_search(q, params, count="totalhits" in info)
    props = set(params["prop"])
    patterns = search.parse_query(params["search"]).highlight
    nearmatch = params["what"] == "nearmatch"
    out = q.ctx.out
    items = []
    for row in rows:
        page_id = int(row["page_id"])
        current = latest.get(page_id)
        text = str(current["old_text"]) if current is not None else ""
        entry: dict[str, Any] = {
            "ns": int(row["page_namespace"]),
            "title": prefixed(q, int(row["page_namespace"]), str(row["page_title"])),
            "pageid": page_id,
        }
        if "size" in props:
            entry["size"] = int(row["page_len"])
        if "wordcount" in props:
            entry["wordcount"] = search.word_count(text)
        if "snippet" in props:
            entry["snippet"] = "" if nearmatch else search.highlight(text, patterns)
        if "timestamp" in props and current is not None:
            entry["timestamp"] = iso(str(current["rev_timestamp"]))
        if not nearmatch:
            if "titlesnippet" in props:
                entry["titlesnippet"] = ""
            if "categorysnippet" in props:
                entry["categorysnippet"] = ""
            if "isfilematch" in props:
                out.flag(entry, "isfilematch", False)
        items.append(entry)
    if not nearmatch and "totalhits" in info:
        q.data["searchinfo"] = {"totalhits": total}
    q.data["search"] = items
    if following is not None:
        q.continuation.add(SEARCH, "offset", following)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, _total, _latest_rows, following = await _run_search(q, params, count=False)
    offset = max(0, params["offset"])
    if following is not None:
        q.continuation.add_generator(SEARCH, "offset", following)
    ids = [int(r["page_id"]) for r in rows]
    return GeneratedPages(
        page_ids=ids, extra={pid: {"index": offset + i + 1} for i, pid in enumerate(ids)}
    )


MODULE = QueryModule(SEARCH, run, generate)
