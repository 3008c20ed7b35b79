"""`action=rollback` (ApiRollback): undo the last user's run of edits on a page."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import (
    UNKNOWN_USER,
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
from atrium.wiki.api.params import BOOLEAN, INTEGER, TAGS, USER, ModuleSpec, Param
from atrium.wiki.changes import rendered_edit
from atrium.wiki.reads.users import account_by_id

ROLLBACK = write_spec(
    "rollback",
    "ApiRollback",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param("tags", TAGS, multi=True),
        Param("user", USER, required=True, subtypes=("name", "ip", "interwiki", "id")),
        Param("summary", default=""),
        Param("markbot", BOOLEAN),
        watchlist_param(),
        token_param("rollback"),
    ),
)


async def rollback(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    title = await target(ctx, params, spec.name)
    await check_blocked(ctx, spec.name, title)
    user = str(params["user"])
    if user.startswith("#"):
        account = await ctx.db.read(account_by_id, int(user[1:]))
        user = account.name if account is not None else UNKNOWN_USER
    with change_errors(spec.name):
        done = await rendered_edit.rollback(
            ctx.db,
            ctx.site,
            performer(ctx),
            title,
            user,
            params["summary"],
            params["markbot"],
        )
    await apply_watchlist(ctx, title, params["watchlist"], "watchrollback")
    return {
        "rollback": {
            "title": prefixed(ctx, title),
            "pageid": done.page_id,
            "summary": done.summary,
            "revid": done.rev_id,
            "old_revid": done.old_revid,
            "last_revid": done.last_revid,
        }
    }


ACTION = Action(ROLLBACK, rollback, token="rollback")
