"""`Special:PagesWithProp` (`Special:PagesWithProp/<property>`): the pages that have a page
property (`hiddencat`, `defaultsort`, `notoc` …), with its value, in one namespace or all, newest
page first unless reversed or sorted by value; paged by `limit` and `offset` as QueryPage does.
Long or binary values are not shown, only their size."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from atrium.wiki.reads.pages_with_prop import pages_with_prop, prop_names
from atrium.wiki.titles import Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

HEADING = "Pages with a page property"
LIMITS = (20, 50, 100, 250, 500)
MAX_OFFSET = 10_000_000
MAX_SHOWN_VALUE = 1024  # bytes: a longer value reads as its size (formatResult)
MAX_NAME = 255


def format_size(size: int) -> str:
    """Language::formatSize for the sizes a value has (bytes, KB, MB)."""
    if size < 1024:
        return f"{size} byte{'' if size == 1 else 's'}"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{round(size / (1024 * 1024), 1):g} MB"


def _value(value: str) -> dict[str, str]:
    size = len(value.encode())
    if "\x00" in value:
        return {"hidden": f"binary property value hidden ({format_size(size)})"}
    if size > MAX_SHOWN_VALUE:
        return {"hidden": f"long text property value hidden ({format_size(size)})"}
    return {"shown": value}


def namespace_or_all(ctx: SpecialContext) -> int | None:
    """The form's `namespace` (WebRequest::getIntOrNull), None for all or for one that does not
    exist."""
    text = ctx.param("namespace").strip()
    if not text.lstrip("-").isdigit() or len(text) > 9:
        return None
    ns = int(text)
    return ns if ns in ctx.site.namespaces.by_id else None


async def handle(ctx: SpecialContext) -> Response:
    name = (ctx.param("propname") or ctx.subpage).strip()[:MAX_NAME]
    ns = namespace_or_all(ctx)
    reverse, by_value = ctx.flag("reverse"), ctx.flag("sortbyvalue")
    limit = ctx.int_param("limit", 50, 1, 5000)
    offset = ctx.int_param("offset", 0, 0, MAX_OFFSET)
    names = await ctx.db.read(prop_names)
    rows: list[Any] = []
    if name:
        rows = await ctx.db.read(
            lambda conn: pages_with_prop(
                conn, name, ns, reverse=reverse, by_value=by_value, offset=offset, limit=limit
            )
        )
    more = len(rows) > limit
    results = [
        {
            "title": Title(int(r["page_namespace"]), str(r["page_title"])),
            "value": _value(str(r["pp_value"] or "")) if r["pp_value"] else {},
        }
        for r in rows[:limit]
    ]
    params: dict[str, str | int] = {"propname": name}
    if ns is not None:
        params["namespace"] = ns
    if reverse:
        params["reverse"] = 1
    if by_value:
        params["sortbyvalue"] = 1
    return await render(
        ctx, "pageswithprop.html", HEADING, name=name, names=names, ns=ns, reverse=reverse,
        by_value=by_value, results=results, searched=bool(name), offset=offset, limit=limit,
        more=more, limits=LIMITS, params=params,
    )  # fmt: skip


PAGE = SpecialPage("PagesWithProp", HEADING, "pages", handle, aliases=("PagesByProp",))
