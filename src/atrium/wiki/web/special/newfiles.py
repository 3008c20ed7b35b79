"""`Special:NewFiles` (alias `Newimages`): a gallery of the newest uploads, optionally of one
uploader, with a limit; hidden uploaders stay hidden as in `Special:ListFiles`."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.listfiles import file_entries
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render


async def handle(ctx: SpecialContext) -> Response:
    uploader = (ctx.param("user") or ctx.subpage).strip().replace("_", " ")
    limit = ctx.int_param("limit", 50, 1, 500)
    entries = await file_entries(ctx, uploader, limit)
    return await render(
        ctx, "newfiles.html", "New files", uploader=uploader, limit=limit, entries=entries
    )


PAGE = SpecialPage("NewFiles", "New files", "changes", handle, aliases=("Newimages",))
