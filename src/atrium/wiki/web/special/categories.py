"""`Special:Categories`: the categories that have members, in name order from a starting name, with
how many members each has."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.reads.categories import all_categories
from atrium.wiki.titles import NS_CATEGORY, Title
from atrium.wiki.web.special.allpages import title_key
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render


async def handle(ctx: SpecialContext) -> Response:
    start = ctx.param("from") or ctx.subpage
    limit = ctx.int_param("limit", 50, 1, 5000)
    rows = await ctx.db.read(all_categories, title_key(ctx, start, NS_CATEGORY), limit + 1)
    following = rows[limit][0].replace("_", " ") if len(rows) > limit else None
    entries = [(Title(NS_CATEGORY, name), name.replace("_", " "), n) for name, n in rows[:limit]]
    return await render(
        ctx,
        "categories.html",
        "Categories",
        start=start,
        limit=limit,
        entries=entries,
        following=following,
    )


PAGE = SpecialPage("Categories", "Categories", "pages", handle)
