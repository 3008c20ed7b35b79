"""`Special:ActiveUsers`: the registered users with changes in the last 30 days
(`$wgActiveUserDays`), by name from `username` on, with how many; paged by name. Users a
`hidename` block hides are listed only to those with `hideuser`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from starlette.responses import Response

from atrium.wiki.reads.user_lists import active_users
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

ACTIVE_DAYS = 30


async def handle(ctx: SpecialContext) -> Response:
    start = ctx.param("username").strip().replace("_", " ")[:255]
    limit = ctx.int_param("limit", 50, 1, 5000)
    since = (datetime.now(UTC) - timedelta(days=ACTIVE_DAYS)).strftime("%Y%m%d%H%M%S")
    see_hidden = ctx.reader.allowed("hideuser")
    rows = await ctx.db.read(active_users, since, start, limit, see_hidden)
    after = str(rows[limit]["user_name"]) if len(rows) > limit else ""
    users = [(str(r["user_name"]), int(r["actions"])) for r in rows[:limit]]
    return await render(
        ctx, "activeusers.html", "Active users list", users=users, start=start, limit=limit,
        after=after, days=ACTIVE_DAYS,
    )  # fmt: skip


PAGE = SpecialPage("ActiveUsers", "Active users list", "users", handle)
