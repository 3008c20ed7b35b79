"""`prop=links`, `prop=templates` and `prop=images`: the pages, templates and files each page of the
set links to (MediaWiki's ApiQueryLinks and ApiQueryImages); all three are also generators.

Rows come in (page, namespace, title) order; the continuation value is that key of the first row not
returned, `from|ns|title` (`from|title` for images).

The three modules stay in one file: links and templates are one MediaWiki class and images its near
copy, so one body over a table of link kinds serves them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.wiki import schema
from atrium.wiki.api.params import (
    NAMESPACE,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.pageset import (
    GeneratedPages,
    QueryModule,
    QueryRun,
    badcontinue,
    cont_int,
)
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import links as linkreads
from atrium.wiki.titles import NS_FILE, InvalidTitle


@dataclass(frozen=True)
class _Kind:
    spec: ModuleSpec
    table: sa.Table
    prefix: str  # column prefix: pl, tl, il
    filter_param: str  # titles, templates, images
    result_key: str

    @property
    def has_ns(self) -> bool:
        return self.prefix != "il"

    def key_columns(self) -> list[str]:
        if self.has_ns:
            return [f"{self.prefix}_namespace", f"{self.prefix}_title"]
        return ["il_to"]

    def target(self, row: Any) -> tuple[int, str]:
        if self.has_ns:
            return int(row[f"{self.prefix}_namespace"]), str(row[f"{self.prefix}_title"])
        return NS_FILE, str(row["il_to"])


LINKS = ModuleSpec(
    "links",
    "ApiQueryLinks",
    "prop",
    "pl",
    (
        Param("namespace", NAMESPACE, multi=True, allspecifier="*", extranamespaces=(-2, -1)),
        limit(default=10),
        Param("continue"),
        Param("titles", multi=True),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


_LINKS = _Kind(LINKS, schema.pagelinks, "pl", "titles", "links")
TEMPLATES = ModuleSpec(
    "templates",
    "ApiQueryLinks",
    "prop",
    "tl",
    (
        Param("namespace", NAMESPACE, multi=True, allspecifier="*", extranamespaces=(-2, -1)),
        limit(default=10),
        Param("continue"),
        Param("templates", multi=True),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


_TEMPLATES = _Kind(TEMPLATES, schema.templatelinks, "tl", "templates", "templates")
IMAGES = ModuleSpec(
    "images",
    "ApiQueryImages",
    "prop",
    "im",
    (
        limit(default=10),
        Param("continue"),
        Param("images", multi=True),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


_IMAGES = _Kind(IMAGES, schema.imagelinks, "il", "images", "images")


def _continue(kind: _Kind, value: str) -> list[object]:
    parts = value.split("|", 2 if kind.has_ns else 1)
    if len(parts) != (3 if kind.has_ns else 2) or not parts[0].lstrip("-").isdigit():
        raise badcontinue()
    if kind.has_ns:
        if not parts[1].lstrip("-").isdigit():
            raise badcontinue()
        return [cont_int(parts[0]), cont_int(parts[1]), parts[2]]
    return [cont_int(parts[0]), parts[1]]


async def _fetch(kind: _Kind, q: QueryRun, params: dict[str, Any]) -> tuple[list[Any], str | None]:
    ids = sorted(p.page_id for p in q.pages.good.values())
    if not ids:
        return [], None
    cont = _continue(kind, params["continue"]) if params["continue"] is not None else None
    where: list[sa.ColumnElement[bool]] = []
    if params[kind.filter_param]:
        targets: list[tuple[int, str]] = []
        for text in params[kind.filter_param]:
            try:
                title = q.ctx.site.parser.parse(text)
            except InvalidTitle:
                continue
            if kind.has_ns or title.ns == NS_FILE:
                targets.append((title.ns, title.dbkey))
            else:
                q.ctx.warn(
                    kind.spec,
                    "notfile",
                    msg.api("apiwarn-notfile", text),
                )
        if not targets:
            return [], None
        if kind.has_ns:
            ns_col = kind.table.c[f"{kind.prefix}_namespace"]
            title_col = kind.table.c[f"{kind.prefix}_title"]
            where.append(sa.or_(*[sa.and_(ns_col == n, title_col == t) for n, t in targets]))
        else:
            where.append(kind.table.c.il_to.in_([t for _, t in targets]))
    if kind.has_ns and params.get("namespace"):
        where.append(kind.table.c[f"{kind.prefix}_namespace"].in_(params["namespace"]))
    limit = params["limit"]
    rows = await q.ctx.db.read(
        lambda conn: linkreads.outgoing(
            conn,
            kind.table,
            ids,
            kind.key_columns(),
            where=where,
            cont=cont,
            descending=params["dir"] == "descending",
            limit=limit + 1,
        )
    )
    following = None
    if len(rows) > limit:
        nxt = rows[limit]
        key = [str(nxt[f"{kind.prefix}_from"]), *[str(nxt[c]) for c in kind.key_columns()]]
        following = "|".join(key)
        rows = rows[:limit]
    return list(rows), following


def _runner(kind: _Kind) -> Callable[[QueryRun, dict[str, Any]], Any]:
    async def run(q: QueryRun, params: dict[str, Any]) -> None:
        rows, following = await _fetch(kind, q, params)
        parser = q.ctx.site.parser
        for row in rows:
            ns, dbkey = kind.target(row)
            entry = q.page_entry(int(row[f"{kind.prefix}_from"]))
            entry.setdefault(kind.result_key, []).append(
                {"ns": ns, "title": parser.prefixed_text(ns, dbkey)}
            )
        if following is not None:
            q.continuation.add(kind.spec, "continue", following)

    return run


def _generator(kind: _Kind) -> Callable[[QueryRun, dict[str, Any]], Any]:
    async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
        rows, following = await _fetch(kind, q, params)
        generated = GeneratedPages()
        seen: set[tuple[int, str]] = set()
        for row in rows:
            key = kind.target(row)
            if key not in seen:
                seen.add(key)
                generated.titles.append(key)
        if following is not None:
            q.continuation.add_generator(kind.spec, "continue", following)
        return generated

    return generate


MODULES = tuple(
    QueryModule(kind.spec, _runner(kind), _generator(kind))
    for kind in (_LINKS, _TEMPLATES, _IMAGES)
)
MODULE = MODULES[1]
