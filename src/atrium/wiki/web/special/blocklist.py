"""`Special:BlockList`: the active blocks, newest first, optionally of one target (`wpTarget`),
with who made them, when they end, their options and reason; unblock links for administrators.
A hidden user's block is listed only to readers with `hideuser`."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.changes.expiry import INFINITY
from atrium.wiki.reads.block_list import active_blocks
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render


def block_parameters(row: dict[str, object]) -> list[str]:
    shown = []
    if not row["ipb_sitewide"]:
        shown.append("partial block")
    if row["ipb_anon_only"]:
        shown.append("anon. only")
    if row["ipb_create_account"]:
        shown.append("account creation disabled")
    if not row["ipb_enable_autoblock"] and int(str(row["ipb_user"] or 0)):
        shown.append("autoblock disabled")
    if row["ipb_block_email"]:
        shown.append("email disabled")
    if not row["ipb_allow_usertalk"]:
        shown.append("cannot edit own talk page")
    return shown


async def handle(ctx: SpecialContext) -> Response:
    target = (ctx.param("wpTarget") or ctx.subpage).strip()
    limit = ctx.int_param("limit", 50, 1, 500)
    rows = await ctx.db.read(active_blocks, target or None, ctx.reader.allowed("hideuser"), limit)
    entries = [
        {
            "id": int(row["ipb_id"]),
            "target": str(row["ipb_address"]),
            "by": str(row["actor_name"]),
            "time": local_time(str(row["ipb_timestamp"])),
            "expiry": "infinite"
            if row["ipb_expiry"] == INFINITY
            else local_time(str(row["ipb_expiry"])),
            "parameters": block_parameters(dict(row)),
            "reason": str(row["comment_text"] or ""),
            "hidden": bool(row["ipb_deleted"]),
        }
        for row in rows
    ]
    return await render(
        ctx,
        "blocklist.html",
        "Blocked users",
        target=target,
        entries=entries,
        may_unblock=ctx.reader.allowed("block"),
    )


PAGE = SpecialPage("BlockList", "Blocked users", "users", handle)
