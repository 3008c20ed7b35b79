"""`list=pageswithprop` (ApiQueryPagesWithProp): the pages that have a given page property,
by page id."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.params import (
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
)
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun

P = schema.page
PP = schema.page_props


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    descending = params["dir"] == "descending"
    query = (
        sa.select(PP.c.pp_page, PP.c.pp_value, P.c.page_namespace, P.c.page_title)
        .select_from(PP.join(P, P.c.page_id == PP.c.pp_page))
        .where(PP.c.pp_propname == params["propname"])
    )
    cont = parse_continue(params["continue"], (int,))
    if cont is not None:
        query = query.where(from_key([PP.c.pp_page], cont, descending))
    limit = params["limit"]
    query = query.order_by(*order([PP.c.pp_page], descending)).limit(limit + 1)
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    return rows, None if following is None else str(following["pp_page"])


PAGESWITHPROP = ModuleSpec(
    "pageswithprop",
    "ApiQueryPagesWithProp",
    "list",
    "pwp",
    (
        Param("propname", required=True),
        Param("prop", enum("ids", "title", "value"), default="ids|title", multi=True),
        Param("continue"),
        limit(),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rows(q, params)
    props = set(params["prop"])
    items = []
    for row in rows:
        item: dict[str, Any] = {}
        if "ids" in props:
            item["pageid"] = int(row["pp_page"])
        if "title" in props:
            ns = int(row["page_namespace"])
            item["ns"] = ns
            item["title"] = prefixed(q, ns, str(row["page_title"]))
        if "value" in props:
            item["value"] = row["pp_value"]
        items.append(item)
    q.data["pageswithprop"] = items
    if cont is not None:
        q.continuation.add(PAGESWITHPROP, "continue", int(cont))


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rows(q, params)
    if cont is not None:
        q.continuation.add_generator(PAGESWITHPROP, "continue", int(cont))
    return GeneratedPages(page_ids=[int(r["pp_page"]) for r in rows])


MODULE = QueryModule(PAGESWITHPROP, run, generate)
