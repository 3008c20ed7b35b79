"""`Special:Random` (and `Special:Random/<namespace>`): a redirect to a random page that is not a
redirect, of the main namespace or the one named."""

from __future__ import annotations

import secrets

from starlette.responses import RedirectResponse, Response

from atrium.wiki.reads.random_page import random_page
from atrium.wiki.titles import Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, message_page


async def handle(ctx: SpecialContext) -> Response:
    ns = 0
    if ctx.subpage:
        found = ctx.site.namespaces.lookup(ctx.subpage.replace("_", " "))
        ns = found if found is not None and found >= 0 else 0
    point = secrets.randbelow(10**12) / 10**12
    key = await ctx.db.read(random_page, ns, point)
    if key is None:
        label = ctx.site.namespaces.name(ns) or "(Main)"
        return await message_page(
            ctx, "Random page", f"There are no pages in the following namespace: {label}.",
            200, box="mw-message-box",
        )  # fmt: skip
    response = RedirectResponse(Links(ctx.site).page(Title(ns, key)), status_code=302)
    response.headers["Cache-Control"] = "private, no-cache"
    return response


PAGE = SpecialPage("Random", "Random page", "redirects", handle)
