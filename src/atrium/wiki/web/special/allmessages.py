"""`Special:AllMessages`: the interface messages with their default and current texts, filtered
by prefix and by whether a `MediaWiki:` page customises them, paged by name (`from`)."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.messages.store import MESSAGES
from atrium.wiki.reads.message_pages import customised_messages
from atrium.wiki.titles import NS_MEDIAWIKI, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

FILTERS = {"all": "All", "unmodified": "Unmodified", "modified": "Modified"}


async def handle(ctx: SpecialContext) -> Response:
    prefix = ctx.param("prefix").strip().replace(" ", "_")[:255]
    prefix = prefix[:1].lower() + prefix[1:]
    shown = ctx.param("filter", "all")
    if shown not in FILTERS:
        shown = "all"
    start = ctx.param("from").strip()[:255]
    limit = ctx.int_param("limit", 50, 1, 5000)
    local = await ctx.db.read(customised_messages)
    names = sorted(set(MESSAGES) | set(local))
    picked = []
    for key in names:
        if not key.startswith(prefix) or (start and key < start):
            continue
        customised = key in local
        if (shown == "modified" and not customised) or (shown == "unmodified" and customised):
            continue
        picked.append(key)
        if len(picked) > limit:
            break
    after = picked[limit] if len(picked) > limit else ""
    rows = [
        {
            "key": key,
            "title": Title(NS_MEDIAWIKI, key[:1].upper() + key[1:]),
            "default": MESSAGES.get(key),
            "current": local.get(key),
        }
        for key in picked[:limit]
    ]
    return await render(
        ctx, "allmessages.html", "All messages", rows=rows, prefix=prefix, shown=shown,
        filters=FILTERS, limit=limit, after=after,
    )  # fmt: skip


PAGE = SpecialPage("AllMessages", "All messages", "wiki", handle)
