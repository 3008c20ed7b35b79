"""`Special:Watchlist`: the recent changes to the pages the reader watches (days, hide minor
edits, hide bots), and `Special:EditWatchlist`: the watched pages, any of which can be removed
(a form with the session's token; the same change as the API's `action=watch&unwatch`)."""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from atrium.wiki.changes.watching import set_watch
from atrium.wiki.reads.users import options
from atrium.wiki.reads.watchlist import watched_changes, watched_titles
from atrium.wiki.titles import Title
from atrium.wiki.web.special.changelines import change_lines, finished
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.recentchanges import DAYS, number, since
from atrium.wiki.web.special.render import Links, bad_token, not_logged_in, render


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.registered:
        return await not_logged_in(ctx, "view your watchlist")
    prefs = await ctx.db.read(options, ctx.reader.id)
    days = ctx.int_param("days", number(prefs.get("watchlistdays"), 7), 1, 90)
    asked = ctx.request.query_params
    hide_minor = ctx.flag("hideminor") or (
        "hideminor" not in asked and number(prefs.get("watchlisthideminor"), 0) > 0
    )
    hide_bots = ctx.param("hidebots", "1") not in ("", "0")
    if "hidebots" not in asked:
        hide_bots = number(prefs.get("watchlisthidebots"), 1) > 0
    limit = number(prefs.get("wllimit"), 250)
    rows = await ctx.db.read(
        watched_changes, ctx.reader.id, since(days), min(limit, 1000), hide_minor, hide_bots
    )
    titles = await ctx.db.read(watched_titles, ctx.reader.id)
    prefixes = {ns: ctx.site.namespaces.prefix(ns) for ns in ctx.site.namespaces.ids()}
    return await render(
        ctx,
        "watchlist.html",
        "Watchlist",
        lines=await finished(ctx.db, ctx.site, change_lines(ctx.reader, rows, prefixes)),
        count=len(titles),
        days=days,
        day_choices=DAYS,
        hide_minor=hide_minor,
        hide_bots=hide_bots,
    )


async def edit(ctx: SpecialContext) -> Response:
    if not ctx.reader.registered:
        return await not_logged_in(ctx, "edit your watchlist")
    if ctx.method == "POST":
        if not ctx.token_ok():
            return await bad_token(ctx)
        chosen = [v for k, v in ctx.request_form_items() if k == "titles[]"]
        for text in chosen[:1000]:
            title = ctx.title_of(text)
            if title is not None:
                await ctx.db.write(set_watch, ctx.reader.id, title, False)
        return RedirectResponse(Links(ctx.site).special("EditWatchlist"), status_code=303)
    titles = await ctx.db.read(watched_titles, ctx.reader.id)
    entries = [(Title(ns, key), ctx.site.parser.prefixed_text(ns, key)) for ns, key in titles]
    return await render(ctx, "editwatchlist.html", "Edit watchlist", entries=entries)


PAGE = SpecialPage("Watchlist", "Watchlist", "changes", handle)
EDIT_PAGE = SpecialPage("EditWatchlist", "Edit watchlist", "other", edit)
