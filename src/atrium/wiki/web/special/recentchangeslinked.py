"""`Special:RecentChangesLinked` (`Special:RecentChangesLinked/<page>`): the recent changes to
the pages a page links to, or with `showlinkedto` to the pages linking to it, over the last
`days`, in the changes list's lines."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.reads.linked_changes import linked_changes
from atrium.wiki.reads.page_view import current_text
from atrium.wiki.web.special.changelines import change_lines, finished
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.recentchanges import DAYS, since
from atrium.wiki.web.special.render import Links, render


async def handle(ctx: SpecialContext) -> Response:
    text = (ctx.param("target") or ctx.subpage).strip()
    days = ctx.int_param("days", 7, 1, 90)
    limit = ctx.int_param("limit", 50, 1, 5000)
    linked_to = ctx.flag("showlinkedto")
    title = ctx.title_of(text) if text else None
    error = "The requested page title is empty or invalid." if text and title is None else ""
    lines = []
    if title is not None:
        found = await ctx.db.read(current_text, title.ns, title.dbkey)
        page_id = found[0] if found else 0
        if page_id or linked_to:
            rows = await ctx.db.read(
                linked_changes, page_id, title.ns, title.dbkey, linked_to, since(days), limit
            )
            prefixes = {ns: ctx.site.namespaces.prefix(ns) for ns in ctx.site.namespaces.ids()}
            lines = await finished(ctx.db, ctx.site, change_lines(ctx.reader, rows, prefixes))
    heading = "Related changes"
    if title is not None:
        heading = f'Changes related to "{Links(ctx.site).name(title)}"'
    # No changes to list (no page given, or none changed) is a 404, as in MediaWiki's
    # ChangesListSpecialPage.
    return await render(
        ctx, "recentchangeslinked.html", heading, 200 if lines else 404, target=text,
        title=title, lines=lines, days=days, day_choices=DAYS, limit=limit,
        linked_to=linked_to, error=error,
    )  # fmt: skip


PAGE = SpecialPage("RecentChangesLinked", "Related changes", "changes", handle)
