"""`Special:GoToInterwiki/<title>`: the landing page before leaving the wiki for an interwiki
target (`fr:Page`), which asks the reader to continue rather than sending them off unasked; a
local title is redirected to, an invalid or Special one is refused with 404."""

from __future__ import annotations

from urllib.parse import quote

from starlette.responses import RedirectResponse, Response

from atrium.wiki.titles import InvalidTitle, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, message_page, render

MAX_TITLE = 1024


async def handle(ctx: SpecialContext) -> Response:
    text = ctx.subpage[:MAX_TITLE]
    heading = f"Leaving {ctx.site.sitename}"
    if text.startswith("force/"):
        text = text[6:]
    try:
        title = ctx.site.parser.parse(text) if text.strip() else None
    except InvalidTitle:
        title = None
    if title is None or (not title.interwiki and (title.ns < 0 or not title.dbkey)):
        # Special pages are refused as MediaWiki refuses them: no loop of redirects.
        return await message_page(ctx, heading, "The specified title is invalid.", 404)
    if not title.interwiki:
        target = Links(ctx.site).page(Title(title.ns, title.dbkey))
        return RedirectResponse(target, status_code=301)
    rest = title.dbkey
    if title.interwiki in ctx.site.interwiki:
        encoded = quote(rest.replace(" ", "_"), safe=";:@$!*(),/~")
        url = ctx.site.interwiki[title.interwiki].replace("$1", encoded)
    else:
        url = ctx.site.interwiki_url(title.interwiki, f"{title.interwiki}:{rest}")
    return await render(
        ctx, "gotointerwiki.html", heading, url=url, sitename=ctx.site.sitename,
        name=f"{title.interwiki}:{rest.replace('_', ' ')}",
    )  # fmt: skip


PAGE = SpecialPage("GoToInterwiki", "Leaving the wiki", "redirects", handle, listed=False)
