"""`Special:AllPages`: the pages of one namespace in title order from a starting title, 345 at a
time (SpecialAllPages's maximum), with a link to the next chunk; the same read as `list=allpages`."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.reads import pages as page_reads
from atrium.wiki.titles import InvalidTitle, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

CHUNK = 345


def title_key(ctx: SpecialContext, text: str, ns: int) -> str:
    """A title typed into the form as a database key of namespace `ns`."""
    if not text:
        return ""
    try:
        title = ctx.site.parser.parse(text, ns)
    except InvalidTitle:
        return text.replace(" ", "_")
    return title.dbkey if title.ns == ns else text.replace(" ", "_")


def namespace_of(ctx: SpecialContext) -> int:
    ns = ctx.int_param("namespace", 0, -1000, 1_000_000)
    return ns if ns in ctx.site.namespaces.by_id and ns >= 0 else 0


async def handle(ctx: SpecialContext) -> Response:
    ns = namespace_of(ctx)
    start = ctx.param("from") or ctx.subpage
    end = ctx.param("to")
    hide_redirects = ctx.flag("hideredirects")
    start_key, end_key = title_key(ctx, start, ns), title_key(ctx, end, ns)
    rows = await ctx.db.read(
        lambda conn: page_reads.titles_in_order(
            conn,
            ns,
            start=start_key or None,
            end=end_key or None,
            prefix=None,
            limit=CHUNK + 1,
            hide_redirects=hide_redirects,
        )
    )
    following = str(rows[CHUNK][0]) if len(rows) > CHUNK else None
    prefix = ctx.site.namespaces.prefix(ns)
    entries = [
        (Title(ns, str(key)), prefix + str(key).replace("_", " "), bool(redirect))
        for key, redirect in rows[:CHUNK]
    ]
    return await render(
        ctx,
        "allpages.html",
        "All pages",
        namespace=ns,
        start=start,
        end=end,
        hide_redirects=hide_redirects,
        entries=entries,
        following=following.replace("_", " ") if following else None,
    )


PAGE = SpecialPage("AllPages", "All pages", "pages", handle)
