"""`Special:Tags`: the change tags, with their descriptions, where they come from (defined by
users or by the software) and how many changes carry them."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.messages.store import MESSAGES
from atrium.wiki.reads.protections import tag_counts
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render


async def handle(ctx: SpecialContext) -> Response:
    rows = await ctx.db.read(tag_counts)
    tags = [
        {
            "name": str(r["ctd_name"]),
            "label": MESSAGES.get(f"tag-{r['ctd_name']}", str(r["ctd_name"])),
            "description": MESSAGES.get(f"tag-{r['ctd_name']}-description", ""),
            "user_defined": bool(r["ctd_user_defined"]),
            "count": int(r["ctd_count"] or 0),
        }
        for r in rows
    ]
    return await render(ctx, "tags.html", "Tags", tags=tags)


PAGE = SpecialPage("Tags", "Tags", "changes", handle)
