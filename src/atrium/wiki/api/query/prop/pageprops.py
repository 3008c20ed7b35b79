"""`prop=pageprops` (ApiQueryPageProps): the page properties (`page_props`) of each page of the set,
all of them or the names asked for; continued by page id."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.params import ModuleSpec, Param
from atrium.wiki.api.query.pageset import QueryModule, QueryRun, cont_int
from atrium.wiki.reads import links as linkreads

PAGEPROPS = ModuleSpec(
    "pageprops",
    "ApiQueryPageProps",
    "prop",
    "pp",
    (
        Param("continue"),
        Param("prop", multi=True),
    ),
)


def _int_continue(value: str | None) -> int | None:
    if value is None:
        return None
    return cont_int(value)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    start = _int_continue(params["continue"])
    ids = [p for p in sorted(q.pages.good) if start is None or p >= start]
    names = params["prop"] or None
    props = await q.ctx.db.read(linkreads.page_props, ids, names)
    for page_id in ids:
        if page_id in props:
            q.page_entry(page_id)["pageprops"] = props[page_id]


MODULE = QueryModule(PAGEPROPS, run)
