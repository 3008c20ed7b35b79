"""`list=allcategories` (ApiQueryAllCategories). MediaWiki reads its `category` table, whose row for a
category exists while it has members or a description page (WikiPage::updateCategoryCounts adds
it, Category::refreshCounts drops it once both are gone); here that set is read from
categorylinks and the category pages, with the counts of categorylinks."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.params import (
    INTEGER,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.listing import (
    split_page,
    starts_with,
    title_key,
)
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.titles import NS_CATEGORY

P = schema.page
CL = schema.categorylinks
PP = schema.page_props


def _bounds(column: Any, start: str | None, end: str | None, prefix: str | None,
               descending: bool) -> list[Any]:  # fmt: skip
    where: list[Any] = []
    if start is not None:
        where.append(column <= start if descending else column >= start)
    if end is not None:
        where.append(column >= end if descending else column <= end)
    if prefix is not None:
        where.append(starts_with(column, prefix))
    return where


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    descending = params["dir"] == "descending"
    start = title_key(q, params["from"], NS_CATEGORY)
    if params["continue"] is not None:
        start = params["continue"]
    end = title_key(q, params["to"], NS_CATEGORY)
    prefix = title_key(q, params["prefix"], NS_CATEGORY)
    members = sa.select(CL.c.cl_to.label("cat"), CL.c.cl_type.label("type")).where(
        *_bounds(CL.c.cl_to, start, end, prefix, descending)
    )
    described = sa.select(P.c.page_title, sa.null()).where(
        P.c.page_namespace == NS_CATEGORY,
        *_bounds(P.c.page_title, start, end, prefix, descending),
    )
    both = sa.union_all(members, described).subquery()
    name, kind = both.c.cat, both.c.type
    size = sa.func.count(kind)
    query = sa.select(
        name.label("cat"),
        size.label("size"),
        sa.func.sum(sa.case((kind == "page", 1), else_=0)).label("pages"),
        sa.func.sum(sa.case((kind == "file", 1), else_=0)).label("files"),
        sa.func.sum(sa.case((kind == "subcat", 1), else_=0)).label("subcats"),
    ).group_by(name)
    if params["min"] is not None:
        query = query.having(size >= params["min"])
    if params["max"] is not None:
        query = query.having(size <= params["max"])
    limit = params["limit"]
    query = query.order_by(name.desc() if descending else name).limit(limit + 1)
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    return rows, None if following is None else str(following["cat"])


ALLCATEGORIES = ModuleSpec(
    "allcategories",
    "ApiQueryAllCategories",
    "list",
    "ac",
    (
        Param("from"),
        Param("continue"),
        Param("to"),
        Param("prefix"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("min", INTEGER),
        Param("max", INTEGER),
        limit(default=10),
        Param("prop", enum("hidden", "size"), default="", multi=True),
    ),
    generator=True,
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rows(q, params)
    props = set(params["prop"] or ())
    hidden: set[str] = set()
    if "hidden" in props and rows:
        names = [str(r["cat"]) for r in rows]
        hidden = set(
            await q.ctx.db.read(
                lambda conn: conn.scalars(
                    sa.select(P.c.page_title)
                    .select_from(P.join(PP, PP.c.pp_page == P.c.page_id))
                    .where(
                        P.c.page_namespace == NS_CATEGORY,
                        P.c.page_title.in_(names),
                        PP.c.pp_propname == "hiddencat",
                    )
                )
            )
        )
    items = []
    for row in rows:
        item: dict[str, Any] = {}
        q.ctx.out.content(item, "category", str(row["cat"]).replace("_", " "))
        if "size" in props:
            item["size"] = int(row["size"])
            item["pages"] = int(row["pages"] or 0)
            item["files"] = int(row["files"] or 0)
            item["subcats"] = int(row["subcats"] or 0)
        if "hidden" in props:
            q.ctx.out.flag(item, "hidden", str(row["cat"]) in hidden)
        items.append(item)
    q.data["allcategories"] = items
    if cont is not None:
        q.continuation.add(ALLCATEGORIES, "continue", cont)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rows(q, params)
    if cont is not None:
        q.continuation.add_generator(ALLCATEGORIES, "continue", cont)
    return GeneratedPages(titles=[(NS_CATEGORY, str(r["cat"])) for r in rows])


MODULE = QueryModule(ALLCATEGORIES, run, generate)
