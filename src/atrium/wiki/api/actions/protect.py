"""`action=protect` (ApiProtect): change a page's protection levels and their expiries."""

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
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, INTEGER, TAGS, ModuleSpec, Param
from atrium.wiki.changes import pageops, protection
from atrium.wiki.changes.expiry import api_expiry, checked_expiry
from atrium.wiki.messages import messages as msg
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import NS_FILE

PROTECT = write_spec(
    "protect",
    "ApiProtect",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param("protections", multi=True, required=True),
        Param("expiry", multi=True, default="infinite", allowsduplicates=True),
        Param("reason", default=""),
        Param("tags", TAGS, multi=True),
        Param("cascade", BOOLEAN),
        Param("watch", BOOLEAN, deprecated=True),
        watchlist_param(),
        token_param(),
    ),
)


async def protect(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    title = await target(ctx, params, spec.name)
    await check_blocked(ctx, spec.name, title)
    exists = await ctx.db.read(protection.page_row, title) is not None
    expiries: list[str] = params["expiry"]
    protections: list[str] = params["protections"]
    if len(expiries) != len(protections) and len(expiries) != 1:
        raise ApiUsageError(
            "toofewexpiries",
            msg.api("apierror-toofewexpiries", len(expiries), len(protections)),
            module=spec.name,
        )
    if len(expiries) == 1:
        expiries = expiries * len(protections)
    items: list[pageops.Protection] = []
    now = now14()
    for raw, expiry_text in zip(protections, expiries, strict=True):
        action, _, level = raw.partition("=")
        # ApiProtect's order: existence against `create` first, then the type, then the level.
        if exists and action == "create":
            raise ApiUsageError(
                "create-titleexists", msg.api("apierror-create-titleexists"), module=spec.name
            )
        if not exists and action != "create":
            raise ApiUsageError(
                "missingtitle-createonly",
                msg.api("apierror-missingtitle-createonly"),
                module=spec.name,
            )
        types = ("edit", "move", "upload") if title.ns == NS_FILE else ("edit", "move")
        if exists and action not in types:
            raise ApiUsageError(
                "protect-invalidaction",
                msg.api("apierror-protect-invalidaction", action),
                module=spec.name,
            )
        if level == "all":
            level = ""
        if level not in protection.LEVELS:
            raise ApiUsageError(
                "protect-invalidlevel",
                msg.api("apierror-protect-invalidlevel", level),
                module=spec.name,
            )
        with change_errors(spec.name):
            expiry = checked_expiry(expiry_text, now)
        items.append(pageops.Protection(action, level, expiry))
    with change_errors(spec.name):
        cascade, _log = await ctx.db.write(
            pageops.protect,
            ctx.site,
            performer(ctx),
            title,
            items,
            params["reason"],
            params["cascade"],
        )
    result: dict[str, Any] = {"title": prefixed(ctx, title), "reason": params["reason"]}
    ctx.out.flag_if(result, "cascade", cascade)
    result["protections"] = [{p.action: p.level, "expiry": api_expiry(p.expiry)} for p in items]
    watch = "watch" if params["watch"] else params["watchlist"]
    await apply_watchlist(ctx, title, watch, "watchdefault")
    return {"protect": result}


ACTION = Action(PROTECT, protect, token="csrf")
