"""`list=pagepropnames` (ApiQueryPagePropNames): the page property names in use, in order."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.wiki import schema
from atrium.wiki.api.params import (
    ModuleSpec,
    Param,
    limit,
)
from atrium.wiki.api.query.pageset import QueryModule, QueryRun

PP = schema.page_props


PAGEPROPNAMES = ModuleSpec(
    "pagepropnames",
    "ApiQueryPagePropNames",
    "list",
    "ppn",
    (
        Param("continue"),
        limit(),
    ),
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    query = sa.select(PP.c.pp_propname).distinct()
    if params["continue"] is not None:
        query = query.where(PP.c.pp_propname >= params["continue"])
    limit = params["limit"]
    query = query.order_by(PP.c.pp_propname).limit(limit + 1)
    names = [str(n) for n in await q.ctx.db.read(lambda conn: conn.scalars(query))]
    q.data["pagepropnames"] = [{"propname": n} for n in names[:limit]]
    if len(names) > limit:
        q.continuation.add(PAGEPROPNAMES, "continue", names[limit])


MODULE = QueryModule(PAGEPROPNAMES, run)
