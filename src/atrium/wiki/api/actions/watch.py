"""`action=watch` (ApiWatch): add a set of pages to the caller's watchlist or remove them."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import parse_title, token_param, write_spec
from atrium.wiki.api.actions.pageset import PAGESET, page_flags, resolve_pages
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, ModuleSpec, Param
from atrium.wiki.changes import watching
from atrium.wiki.messages import messages as msg

WATCH = write_spec(
    "watch",
    "ApiWatch",
    (
        Param("title", deprecated=True),
        Param("unwatch", BOOLEAN),
        *PAGESET,
        token_param("watch"),
    ),
)


async def watch(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    if not ctx.caller.registered:
        raise ApiUsageError(
            "notloggedin",
            msg.api("watchlistanontext"),
            module=spec.name,
        )
    if not ctx.caller.allowed("editmywatchlist"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-editmywatchlist")),
            module=spec.name,
        )
    if params["title"] is not None:
        params["titles"] = [params["title"], *params["titles"]]
    entries = await resolve_pages(ctx, params, spec.name)
    user_id = ctx.caller.id
    results = []
    for entry in entries:
        if entry.get("special") or entry.get("invalid") or "title" not in entry:
            results.append(page_flags(ctx, entry))
            continue
        title = entry.get("_title") or parse_title(ctx, entry["title"], spec.name)
        await ctx.db.write(watching.set_watch, user_id, title, not params["unwatch"])
        item: dict[str, Any] = {"title": entry["title"], "ns": entry["ns"]}
        ctx.out.flag_if(item, "unwatched" if params["unwatch"] else "watched", True)
        if entry.get("missing"):
            ctx.out.flag_if(item, "missing", True)
        results.append(item)
    result: dict[str, Any] = {}
    ctx.out.flag_if(result, "batchcomplete", True)
    result["watch"] = results
    return result


ACTION = Action(WATCH, watch, token="watch")
