"""`list=backlinks`, `list=embeddedin`, `list=imageusage`: pages linking to, transcluding or using
one title (MediaWiki's ApiQueryBacklinks); all three are generators.

Rows come in the linking page's id order (namespace first when several namespaces are asked for);
the continue value is `<from namespace>|<from page id>`. With `redirect`, the redirects among them
carry `redirlinks`: the pages linking to each redirect.

The three modules stay in one file: they are one MediaWiki class, one body over a table of link
kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
    INTEGER,
    NAMESPACE,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.listing import (
    from_key,
    order,
    parse_continue,
    prefixed,
    require_one,
    split_page,
)
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.messages import messages as msg
from atrium.wiki.titles import InvalidTitle, Title

P = schema.page


@dataclass(frozen=True)
class LinkTable:
    table: sa.Table
    from_col: str
    from_ns_col: str
    ns_col: str | None  # None: the target namespace is fixed (imagelinks: File)
    title_col: str


_TABLES = {
    "backlinks": LinkTable(
        schema.pagelinks, "pl_from", "pl_from_namespace", "pl_namespace", "pl_title"
    ),
    "embeddedin": LinkTable(
        schema.templatelinks, "tl_from", "tl_from_namespace", "tl_namespace", "tl_title"
    ),
    "imageusage": LinkTable(schema.imagelinks, "il_from", "il_from_namespace", None, "il_to"),
}


def _target_condition(link: LinkTable, target: Title) -> Any:
    t = link.table
    cond = t.c[link.title_col] == target.dbkey
    if link.ns_col is not None:
        cond = sa.and_(cond, t.c[link.ns_col] == target.ns)
    return cond


def _linking_pages(
    conn: Conn,
    link: LinkTable,
    targets: list[Title],
    namespaces: list[int] | None,
    filterredir: str,
    start: list[int] | None,
    descending: bool,
    limit: int | None,
    by_ns: bool,
) -> list[Row]:
    t = link.table
    from_col, from_ns = t.c[link.from_col], t.c[link.from_ns_col]
    query = (
        sa.select(
            P.c.page_id,
            P.c.page_namespace,
            P.c.page_title,
            P.c.page_is_redirect,
            from_ns.label("from_ns"),
        )
        .select_from(t.join(P, P.c.page_id == from_col))
        .where(sa.or_(*[_target_condition(link, target) for target in targets]))
    )
    if namespaces is not None:
        query = query.where(from_ns.in_(namespaces))
    if filterredir == "redirects":
        query = query.where(P.c.page_is_redirect.is_(True))
    elif filterredir == "nonredirects":
        query = query.where(P.c.page_is_redirect.is_(False))
    columns = [from_ns, from_col] if by_ns else [from_col]
    if start is not None:
        query = query.where(from_key(columns, start if by_ns else start[1:], descending))
    query = query.order_by(*order(columns, descending))
    if limit is not None:
        query = query.limit(limit)
    return conn.all(query)


async def _fetch(
    q: QueryRun, spec: ModuleSpec, params: dict[str, Any]
) -> tuple[list[Row], dict[int, list[Row]], str | None]:
    link = _TABLES[spec.name]
    if params["pageid"] is not None and params["title"] is None:
        page_id = params["pageid"]
        row = await q.ctx.db.read(
            lambda conn: conn.one(
                sa.select(P.c.page_namespace, P.c.page_title).where(P.c.page_id == page_id)
            )
        )
        if row is None:
            raise ApiUsageError(
                "nosuchpageid",
                msg.api("apierror-nosuchpageid", page_id),
                module=spec.path,
            )
        require_one(spec, params, "title", "pageid")
        target = Title(int(row["page_namespace"]), str(row["page_title"]))
    else:
        require_one(spec, params, "title", "pageid")
        try:
            parsed = q.ctx.site.parser.parse(params["title"])
        except InvalidTitle as exc:
            raise ApiUsageError(
                "invalidtitle",
                msg.api("apierror-invalidtitle", msg.escape_wikitext(params["title"])),
                module=spec.path,
            ) from exc
        target = Title(parsed.ns, parsed.dbkey)
    namespaces: list[int] | None = params["namespace"] or None
    by_ns = namespaces is not None and len(namespaces) > 1
    start = parse_continue(params["continue"], (int, int))
    descending = params["dir"] == "descending"
    limit = params["limit"]
    redirect = bool(params.get("redirect"))
    filterredir = params["filterredir"]
    if redirect and filterredir == "nonredirects":
        filterredir = "all"

    def read(conn: Conn) -> tuple[list[Row], dict[int, list[Row]]]:
        rows = _linking_pages(
            conn, link, [target], namespaces, filterredir, start, descending, limit + 1, by_ns
        )
        below: dict[int, list[Row]] = {}
        if redirect:
            for row in rows[:limit]:
                if row["page_is_redirect"]:
                    redirected = Title(int(row["page_namespace"]), str(row["page_title"]))
                    below[int(row["page_id"])] = _linking_pages(
                        conn, link, [redirected], namespaces, "all", None, descending, None, by_ns
                    )
        return rows, below

    rows, below = await q.ctx.db.read(read)
    rows, following = split_page(rows, limit)
    cont = None if following is None else f"{following['from_ns']}|{following['page_id']}"
    return rows, below, cont


def _entry(q: QueryRun, row: Row) -> dict[str, Any]:
    return {
        "pageid": int(row["page_id"]),
        "ns": int(row["page_namespace"]),
        "title": prefixed(q, int(row["page_namespace"]), str(row["page_title"])),
    }


def _runner(spec: ModuleSpec) -> Any:
    async def run(q: QueryRun, params: dict[str, Any]) -> None:
        rows, below, cont = await _fetch(q, spec, params)
        items = []
        for row in rows:
            entry = _entry(q, row)
            if row["page_is_redirect"]:
                q.ctx.out.flag_if(entry, "redirect", True)
            links = below.get(int(row["page_id"]))
            if links:
                entry["redirlinks"] = [_entry(q, r) for r in links]
            items.append(entry)
        q.data[spec.name] = items
        if cont is not None:
            q.continuation.add(spec, "continue", cont)

    async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
        rows, below, cont = await _fetch(q, spec, params)
        ids = [int(r["page_id"]) for r in rows]
        for links in below.values():
            ids.extend(int(r["page_id"]) for r in links)
        if cont is not None:
            q.continuation.add_generator(spec, "continue", cont)
        return GeneratedPages(page_ids=list(dict.fromkeys(ids)))

    return QueryModule(spec, run, generate)


IMAGEUSAGE = ModuleSpec(
    "imageusage",
    "ApiQueryBacklinks",
    "list",
    "iu",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param("continue"),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("filterredir", enum("all", "nonredirects", "redirects"), default="all"),
        limit(),
        Param("redirect", BOOLEAN),
    ),
    generator=True,
)


EMBEDDEDIN = ModuleSpec(
    "embeddedin",
    "ApiQueryBacklinks",
    "list",
    "ei",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param("continue"),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("filterredir", enum("all", "nonredirects", "redirects"), default="all"),
        limit(),
    ),
    generator=True,
)


BACKLINKS = ModuleSpec(
    "backlinks",
    "ApiQueryBacklinks",
    "list",
    "bl",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param("continue"),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("filterredir", enum("all", "nonredirects", "redirects"), default="all"),
        limit(default=10),
        Param("redirect", BOOLEAN),
    ),
    generator=True,
)


MODULES = tuple(_runner(spec) for spec in (BACKLINKS, EMBEDDEDIN, IMAGEUSAGE))
