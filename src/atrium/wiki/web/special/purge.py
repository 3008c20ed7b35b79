"""`index.php?action=purge` (PurgeAction): a form that asks "Purge the cache of this page?",
whose post drops the page's rendered copies and returns to the page. MediaWiki lets anyone
purge; the form still carries the browser's token (an anonymous browser has one too), so another
site cannot make a browser post it."""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.responses import RedirectResponse, Response

from atrium.wiki.changes import pageops
from atrium.wiki.reads import page_view as reading
from atrium.wiki.web.special.context import TOKEN_FIELD, SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, bad_token, message_page, render
from atrium.wiki.web.viewer import csrf_ok

HEADING = "Purge"


async def handle(ctx: SpecialContext) -> Response:
    title = ctx.target
    if title is None:  # served as an action only
        return await message_page(
            ctx, "Bad title", "The requested page title is empty or invalid.", 400
        )
    links = Links(ctx.site)
    if ctx.method != "POST":
        return await render(ctx, "purge.html", links.name(title), page=title)
    if not csrf_ok(ctx.request, ctx.site, ctx.viewer, ctx.form.get(TOKEN_FIELD)):
        return await bad_token(ctx)
    found = await ctx.db.read(reading.current_text, title.ns, title.dbkey)
    if found is not None:
        await ctx.db.write(pageops.purge, found[0])
    # The request's own parameters go back to the page (PurgeAction's redirectParams).
    kept = [
        (k, v) for k, v in ctx.request.query_params.multi_items() if k not in ("title", "action")
    ]
    href = links.page(title) + (f"?{urlencode(kept)}" if kept else "")
    return RedirectResponse(href, status_code=303)


PAGE = SpecialPage("Purge", HEADING, "pagetools", handle, listed=False)
