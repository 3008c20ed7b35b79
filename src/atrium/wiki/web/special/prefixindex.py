"""`Special:PrefixIndex`: the pages of one namespace whose titles begin with a prefix, in title
order, 345 at a time; `Special:PrefixIndex/Foo` starts with the prefix "Foo"."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.reads import pages as page_reads
from atrium.wiki.titles import Title
from atrium.wiki.web.special.allpages import CHUNK, namespace_of, title_key
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render


async def handle(ctx: SpecialContext) -> Response:
    ns = namespace_of(ctx)
    prefix_text = ctx.param("prefix") or ctx.subpage
    start = ctx.param("from")
    hide_redirects = ctx.flag("hideredirects")
    entries: list[tuple[Title, str, bool]] = []
    following = None
    if prefix_text:
        key = title_key(ctx, prefix_text, ns)
        start_key = title_key(ctx, start, ns) or key
        rows = await ctx.db.read(
            lambda conn: page_reads.titles_in_order(
                conn,
                ns,
                start=start_key,
                end=None,
                prefix=key,
                limit=CHUNK + 1,
                hide_redirects=hide_redirects,
            )
        )
        if len(rows) > CHUNK:
            following = str(rows[CHUNK][0]).replace("_", " ")
        ns_prefix = ctx.site.namespaces.prefix(ns)
        entries = [
            (Title(ns, str(k)), ns_prefix + str(k).replace("_", " "), bool(redirect))
            for k, redirect in rows[:CHUNK]
        ]
    return await render(
        ctx,
        "prefixindex.html",
        "Pages with prefix",
        namespace=ns,
        prefix=prefix_text,
        hide_redirects=hide_redirects,
        entries=entries,
        searched=bool(prefix_text),
        following=following,
    )


PAGE = SpecialPage("PrefixIndex", "Pages with prefix", "pages", handle)
