"""`Special:NewPages`: the pages created most recently (recent changes of the `new` kind), with a
namespace filter and a limit; bots' creations are hidden unless `hidebots=0`."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.reads.recent_changes import recent_changes
from atrium.wiki.web.special.changelines import change_lines, finished
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.recentchanges import namespace_filter, since
from atrium.wiki.web.special.render import render

RC_MAX_AGE_DAYS = 90  # $wgRCMaxAge: new pages are those recent changes still hold


async def handle(ctx: SpecialContext) -> Response:
    namespace = namespace_filter(ctx)
    limit = ctx.int_param("limit", 50, 1, 5000)
    hide_bots = ctx.param("hidebots", "1") not in ("", "0")
    rows = await ctx.db.read(
        lambda conn: recent_changes(
            conn,
            since=since(RC_MAX_AGE_DAYS),
            limit=limit,
            namespace=namespace,
            hide_bots=hide_bots,
            only_new=True,
        )
    )
    prefixes = {ns: ctx.site.namespaces.prefix(ns) for ns in ctx.site.namespaces.ids()}
    return await render(
        ctx,
        "newpages.html",
        "New pages",
        lines=await finished(ctx.db, ctx.site, change_lines(ctx.reader, rows, prefixes)),
        namespace=namespace,
        limit=limit,
        hide_bots=hide_bots,
    )


PAGE = SpecialPage("NewPages", "New pages", "changes", handle)
