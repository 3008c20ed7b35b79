"""`Special:AutoblockList`: the automatic blocks (of the addresses a blocked user edited from),
with their total, as BlockListPager lists them; an autoblock's address is never shown, only
"Autoblock #<id>", and hidden ones only to readers with `hideuser`."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.changes.expiry import INFINITY
from atrium.wiki.reads.block_list import autoblock_total, autoblocks
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.special.blocklist import block_parameters
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.msg import msg_inline
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

LIMITS = (20, 50, 100, 250, 500)


async def handle(ctx: SpecialContext) -> Response:
    limit = ctx.int_param("limit", 50, 1, 500)
    offset = ctx.int_param("offset", 0, 0, 10**9)
    show_hidden = ctx.reader.allowed("hideuser")
    rows = await ctx.db.read(autoblocks, show_hidden, limit + 1, offset)
    total = await ctx.db.read(autoblock_total)
    entries = [
        {
            "id": int(row["ipb_id"]),
            "by": str(row["actor_name"]),
            "time": local_time(str(row["ipb_timestamp"])),
            "expiry": "infinite"
            if row["ipb_expiry"] == INFINITY
            else local_time(str(row["ipb_expiry"])),
            "parameters": block_parameters(dict(row)),
            "reason": str(row["comment_text"] or ""),
        }
        for row in rows[:limit]
    ]
    return await render(
        ctx,
        "autoblocklist.html",
        "Autoblocks",
        entries=entries,
        total=await msg_inline(ctx, "autoblocklist-total-autoblocks", total),
        limit=limit,
        limits=sorted({*LIMITS, limit}),
        offset=offset,
        more=len(rows) > limit,
        may_unblock=ctx.reader.allowed("block"),
    )


PAGE = SpecialPage("AutoblockList", "Autoblocks", "users", handle)
