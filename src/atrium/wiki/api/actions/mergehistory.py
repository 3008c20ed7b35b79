"""`action=mergehistory` (ApiMergeHistory): move a page's early revisions into another page."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import (
    check_blocked,
    performer,
    prefixed,
    target,
    token_param,
    write_spec,
)
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import INTEGER, TIMESTAMP, ModuleSpec, Param
from atrium.wiki.changes.history_merge import merge_history
from atrium.wiki.messages import messages as msg
from atrium.wiki.timestamps import iso, now14

MERGEHISTORY = write_spec(
    "mergehistory",
    "ApiMergeHistory",
    (
        Param("from"),
        Param("fromid", INTEGER),
        Param("to"),
        Param("toid", INTEGER),
        Param("timestamp", TIMESTAMP),
        Param("reason", default=""),
        token_param(),
    ),
)


def _only_one(params: dict[str, Any], names: list[str], module: str) -> None:
    given = [name for name in names if params.get(name) is not None]
    if len(given) > 1:
        raise ApiUsageError("invalidparammix", msg.invalidparammix(names), module=module)
    if not given:
        raise ApiUsageError("missingparam", msg.missing_one_of(names), module=module)


async def mergehistory(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    # Both pairs are checked before either page is looked up, as ApiMergeHistory does.
    _only_one(params, ["from", "fromid"], spec.name)
    _only_one(params, ["to", "toid"], spec.name)
    source = await target(ctx, params, spec.name, "from")
    dest = await target(ctx, params, spec.name, "to")
    await check_blocked(ctx, spec.name, dest)
    with change_errors(spec.name):
        await ctx.db.write(
            merge_history,
            ctx.site,
            performer(ctx),
            source,
            dest,
            params["timestamp"],
            params["reason"],
        )
    return {
        "mergehistory": {
            "from": prefixed(ctx, source),
            "to": prefixed(ctx, dest),
            "timestamp": iso(params["timestamp"] or now14()),
            "reason": params["reason"],
        }
    }


ACTION = Action(MERGEHISTORY, mergehistory, token="csrf")
