"""MediaWiki's "You are blocked from editing" page (`blockedtext`): who blocked the reader, why,
from when until when, and the block's id; shown instead of a form a blocked reader could not
use. Hidden (hidename) blocks name no one but the reader. It answers 200, as MediaWiki's
UserBlockedError page does (an ErrorPageError sets no status)."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.changes.blocks import ActiveBlock, blocking
from atrium.wiki.changes.expiry import INFINITY
from atrium.wiki.titles import Title
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.render import render


async def block_of(ctx: SpecialContext, title: Title | None) -> ActiveBlock | None:
    """The block that stops the reader from changing `title` (sitewide blocks when None)."""
    reader = ctx.reader
    return await ctx.db.read(blocking, reader.id or None, reader.name, ctx.client_ip, title)


async def block_notice(ctx: SpecialContext, block: ActiveBlock) -> Response:
    expiry = "infinite" if block.expiry == INFINITY else local_time(block.expiry)
    return await render(
        ctx,
        "blocked.html",
        "You are blocked from editing" if block.sitewide else "You are blocked from this page",
        200,
        block=block,
        start=local_time(block.timestamp),
        expiry=expiry,
        ip=ctx.client_ip,
    )
