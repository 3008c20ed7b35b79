"""`action=delete` (ApiDelete): delete a page, or one old version of a file."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import (
    apply_watchlist,
    check_blocked,
    performer,
    prefixed,
    target,
    token_param,
    watchlist_param,
    write_spec,
)
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.params import BOOLEAN, INTEGER, TAGS, ModuleSpec, Param
from atrium.wiki.changes import pageops, protection
from atrium.wiki.titles import Title

DELETE = write_spec(
    "delete",
    "ApiDelete",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param("reason"),
        Param("tags", TAGS, multi=True),
        Param("deletetalk", BOOLEAN),
        Param("watch", BOOLEAN, deprecated=True),
        watchlist_param(),
        Param("unwatch", BOOLEAN, deprecated=True),
        Param("oldimage"),
        token_param(),
    ),
)


async def delete(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    title = await target(ctx, params, spec.name)
    await check_blocked(ctx, spec.name, title)
    who = performer(ctx)
    with change_errors(spec.name):
        done = await ctx.db.write(pageops.delete_page, ctx.site, who, title, params["reason"])
        if params["deletetalk"] and title.ns % 2 == 0:
            talk = Title(title.ns + 1, title.dbkey)
            if await ctx.db.read(protection.page_row, talk) is not None:
                await ctx.db.write(pageops.delete_page, ctx.site, who, talk, params["reason"])
    watch = (
        "watch" if params["watch"] else ("unwatch" if params["unwatch"] else params["watchlist"])
    )
    await apply_watchlist(ctx, title, watch, "watchdeletion")
    return {"delete": {"title": prefixed(ctx, title), "reason": done.reason, "logid": done.log_id}}


ACTION = Action(DELETE, delete, token="csrf")
