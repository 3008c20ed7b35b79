"""`list=alllinks`, `alltransclusions`, `allfileusages`, `allredirects` (ApiQueryAllLinks): link
targets by title, each with the page it comes from; `unique` lists each target once.

Rows come by (target title, source page id); the continue value is `<title>|<from id>`, or the
title alone with `unique`, as MediaWiki's. As a generator: the source pages, or with `unique` the
target titles.

The four modules stay in one file: they are one MediaWiki class, one body over a table of link kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
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
    split_page,
    starts_with,
    title_key,
)
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.messages import messages as msg
from atrium.wiki.titles import NS_FILE


@dataclass(frozen=True)
class LinkKind:
    spec: ModuleSpec
    table: sa.Table
    from_col: str
    ns_col: str | None  # None: the namespace is fixed (imagelinks: File)
    title_col: str


ALLTRANSCLUSIONS = ModuleSpec(
    "alltransclusions",
    "ApiQueryAllLinks",
    "list",
    "at",
    (
        Param("continue"),
        Param("from"),
        Param("to"),
        Param("prefix"),
        Param("unique", BOOLEAN),
        Param("prop", enum("ids", "title"), default="title", multi=True),
        Param("namespace", NAMESPACE, default=10, extranamespaces=(-2, -1)),
        limit(default=10),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


ALLREDIRECTS = ModuleSpec(
    "allredirects",
    "ApiQueryAllLinks",
    "list",
    "ar",
    (
        Param("continue"),
        Param("from"),
        Param("to"),
        Param("prefix"),
        Param("unique", BOOLEAN),
        Param("prop", enum("fragment", "ids", "interwiki", "title"), default="title", multi=True),
        Param("namespace", NAMESPACE, default=0, extranamespaces=(-2, -1)),
        limit(default=10),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


ALLLINKS = ModuleSpec(
    "alllinks",
    "ApiQueryAllLinks",
    "list",
    "al",
    (
        Param("continue"),
        Param("from"),
        Param("to"),
        Param("prefix"),
        Param("unique", BOOLEAN),
        Param("prop", enum("ids", "title"), default="title", multi=True),
        Param("namespace", NAMESPACE, default=0, extranamespaces=(-2, -1)),
        limit(default=10),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


ALLFILEUSAGES = ModuleSpec(
    "allfileusages",
    "ApiQueryAllLinks",
    "list",
    "af",
    (
        Param("continue"),
        Param("from"),
        Param("to"),
        Param("prefix"),
        Param("unique", BOOLEAN),
        Param("prop", enum("ids", "title"), default="title", multi=True),
        limit(default=10),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


KINDS = {
    "alllinks": LinkKind(ALLLINKS, schema.pagelinks, "pl_from", "pl_namespace", "pl_title"),
    "alltransclusions": LinkKind(
        ALLTRANSCLUSIONS, schema.templatelinks, "tl_from", "tl_namespace", "tl_title"
    ),
    "allfileusages": LinkKind(ALLFILEUSAGES, schema.imagelinks, "il_from", None, "il_to"),
    "allredirects": LinkKind(ALLREDIRECTS, schema.redirect, "rd_from", "rd_namespace", "rd_title"),
}


def _namespace(kind: LinkKind, params: dict[str, Any]) -> int:
    return NS_FILE if kind.ns_col is None else int(params["namespace"])


async def _rows(
    q: QueryRun, kind: LinkKind, params: dict[str, Any]
) -> tuple[list[Row], str | None]:
    spec = kind.spec
    t = kind.table
    unique = bool(params["unique"])
    props = set(params.get("prop") or ())
    clashing = [p for p in ("ids", "fragment", "interwiki") if p in props]
    if unique and clashing:
        raise ApiUsageError(
            "invalidparammix",
            msg.api("apierror-invalidparammix-cannotusewith",
                    f"{spec.prefix}prop={'|'.join(clashing)}", f"{spec.prefix}unique"),
            module=spec.path,
        )  # fmt: skip
    ns = _namespace(kind, params)
    descending = params["dir"] == "descending"
    title = t.c[kind.title_col]
    source = t.c[kind.from_col]
    columns: list[Any] = [title] if unique else [title, source]
    extra: list[Any] = []
    if kind.spec is ALLREDIRECTS and not unique:
        extra = [t.c.rd_fragment, t.c.rd_interwiki]
    query = sa.select(*columns, *extra)
    if kind.ns_col is not None:
        query = query.where(t.c[kind.ns_col] == ns)
    start = title_key(q, params["from"], ns)
    end = title_key(q, params["to"], ns)
    prefix = title_key(q, params["prefix"], ns)
    if start is not None:
        query = query.where(title <= start if descending else title >= start)
    if end is not None:
        query = query.where(title >= end if descending else title <= end)
    if prefix is not None:
        query = query.where(starts_with(title, prefix))
    cont = parse_continue(params["continue"], (str,) if unique else (str, int))
    if cont is not None:
        query = query.where(from_key(columns, cont, descending))
    if unique:
        query = query.distinct()
    limit = params["limit"]
    query = query.order_by(*order(columns, descending)).limit(limit + 1)
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    nxt = None
    if following is not None:
        nxt = str(following[kind.title_col])
        if not unique:
            nxt += f"|{following[kind.from_col]}"
    return rows, nxt


def _runner(kind: LinkKind) -> Any:
    async def run(q: QueryRun, params: dict[str, Any]) -> None:
        rows, cont = await _rows(q, kind, params)
        props = set(params["prop"])
        ns = _namespace(kind, params)
        items = []
        for row in rows:
            item: dict[str, Any] = {}
            if "ids" in props:
                item["fromid"] = int(row[kind.from_col])
            if "title" in props:
                item["ns"] = ns
                item["title"] = prefixed(q, ns, str(row[kind.title_col]))
            if "fragment" in props and row.get("rd_fragment"):
                item["fragment"] = row["rd_fragment"]
            if "interwiki" in props and row.get("rd_interwiki"):
                item["interwiki"] = row["rd_interwiki"]
            items.append(item)
        q.data[kind.spec.name] = items
        if cont is not None:
            q.continuation.add(kind.spec, "continue", cont)

    return run


def _generator(kind: LinkKind) -> Any:
    async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
        rows, cont = await _rows(q, kind, params | {"prop": []})
        if cont is not None:
            q.continuation.add_generator(kind.spec, "continue", cont)
        if params["unique"]:
            ns = _namespace(kind, params)
            return GeneratedPages(titles=[(ns, str(r[kind.title_col])) for r in rows])
        return GeneratedPages(page_ids=list(dict.fromkeys(int(r[kind.from_col]) for r in rows)))

    return generate


MODULES = tuple(QueryModule(k.spec, _runner(k), _generator(k)) for k in KINDS.values())
