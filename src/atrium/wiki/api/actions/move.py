"""`action=move` (ApiMove): rename a page, with its talk page and subpages on request."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import (
    apply_watchlist,
    check_blocked,
    check_rate_limit,
    parse_title,
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
from atrium.wiki.changes import ChangeError, pageops, protection
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.titles import Title

MOVE = write_spec(
    "move",
    "ApiMove",
    (
        Param("from"),
        Param("fromid", INTEGER),
        Param("to", required=True),
        Param("reason", default=""),
        Param("movetalk", BOOLEAN),
        Param("movesubpages", BOOLEAN),
        Param("noredirect", BOOLEAN),
        watchlist_param(),
        Param("ignorewarnings", BOOLEAN),
        Param("tags", TAGS, multi=True),
        token_param(),
    ),
)


async def move(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    source = await target(ctx, params, spec.name, "from")
    # ApiMove refuses a missing source before it reads `to`.
    if await ctx.db.read(protection.page_row, source) is None:
        raise ApiUsageError("missingtitle", msg.api("apierror-missingtitle"), module=spec.name)
    dest = parse_title(ctx, params["to"], spec.name)
    await check_blocked(ctx, spec.name, source)
    await check_rate_limit(ctx, "move", spec.name)
    who = performer(ctx)
    out = ctx.out
    with change_errors(spec.name):
        moved = await ctx.db.write(
            pageops.move_page,
            ctx.site,
            who,
            source,
            dest,
            params["reason"],
            params["noredirect"],
        )
    result: dict[str, Any] = {
        "from": prefixed(ctx, source),
        "to": prefixed(ctx, dest),
        "reason": params["reason"],
    }
    out.flag(result, "redirectcreated", moved.redirect_created)
    out.flag(result, "moveoverredirect", moved.over_redirect)
    if params["movetalk"] and source.ns >= 0 and source.ns % 2 == 0 and dest.ns % 2 == 0:
        talk_from, talk_to = Title(source.ns + 1, source.dbkey), Title(dest.ns + 1, dest.dbkey)
        if await ctx.db.read(protection.page_row, talk_from) is not None:
            try:
                talk = await ctx.db.write(
                    pageops.move_page,
                    ctx.site,
                    who,
                    talk_from,
                    talk_to,
                    params["reason"],
                    params["noredirect"],
                )
                result["talkfrom"] = prefixed(ctx, talk_from)
                result["talkto"] = prefixed(ctx, talk_to)
                out.flag(result, "talkmoveoverredirect", talk.over_redirect)
            except ChangeError as exc:
                result["talkmove-errors"] = [
                    {
                        "message": each.key,
                        "params": list(each.params),
                        "code": each.code,
                        "type": "error",
                    }
                    for each in (exc, *exc.more)
                ]
    if params["movesubpages"]:
        result["subpages"] = await _move_subpages(ctx, source, dest, params)
        if params["movetalk"] and source.ns >= 0 and source.ns % 2 == 0 and dest.ns % 2 == 0:
            # ApiMove: with movetalk, the talk page's subpages move too.
            talk_source = Title(source.ns + 1, source.dbkey)
            talk_dest = Title(dest.ns + 1, dest.dbkey)
            result["subpages-talk"] = await _move_subpages(ctx, talk_source, talk_dest, params)
    await apply_watchlist(ctx, source, params["watchlist"], "watchmoves")
    await apply_watchlist(ctx, dest, params["watchlist"], "watchmoves")
    return {"move": result}


async def _move_subpages(
    ctx: ApiContext, source: Title, dest: Title, params: dict[str, Any]
) -> list[dict[str, Any]]:
    rows = await ctx.db.read(page_reads.subpages, source)
    moved: list[dict[str, Any]] = []
    for dbkey in rows:
        old = Title(source.ns, dbkey)
        new = Title(dest.ns, dest.dbkey + dbkey[len(source.dbkey) :])
        try:
            await ctx.db.write(
                pageops.move_page,
                ctx.site,
                performer(ctx),
                old,
                new,
                params["reason"],
                params["noredirect"],
            )
            moved.append({"from": prefixed(ctx, old), "to": prefixed(ctx, new)})
        except ChangeError as exc:
            moved.append(
                {
                    "from": prefixed(ctx, old),
                    "errors": [
                        {"message": each.key, "code": each.code, "type": "error"}
                        for each in (exc, *exc.more)
                    ],
                }
            )
    return moved


ACTION = Action(MOVE, move, token="csrf")
