"""`Special:ListUsers` (UsersPager): the registered users by name from `username` on, of one
group when `group` is given, with their groups, edit count and registration; paged by name.
Users a `hidename` block hides are listed only to those with `hideuser`."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.accounts.rights import EXPLICIT_GROUPS
from atrium.wiki.reads.user_lists import groups_of, list_users
from atrium.wiki.timestamps import now14
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render


async def handle(ctx: SpecialContext) -> Response:
    start = ctx.param("username").strip().replace("_", " ")[:255]
    group = (ctx.param("group") or ctx.subpage).strip()
    if group not in EXPLICIT_GROUPS:
        group = ""
    limit = ctx.int_param("limit", 50, 1, 5000)
    now = now14()
    see_hidden = ctx.reader.allowed("hideuser")
    rows = await ctx.db.read(list_users, start, group, limit, see_hidden, now)
    after = str(rows[limit]["user_name"]) if len(rows) > limit else ""
    rows = rows[:limit]
    groups = await ctx.db.read(groups_of, [int(r["user_id"]) for r in rows], now)
    users = [
        {
            "name": str(r["user_name"]),
            "groups": groups.get(int(r["user_id"]), []),
            "edits": int(r["user_editcount"] or 0),
            "created": local_time(str(r["user_registration"])) if r["user_registration"] else "",
        }
        for r in rows
    ]
    return await render(
        ctx, "listusers.html", "Users list", users=users, start=start, group=group,
        groups=EXPLICIT_GROUPS, limit=limit, after=after,
    )  # fmt: skip


PAGE = SpecialPage("ListUsers", "Users list", "users", handle, aliases=("UserList",))
