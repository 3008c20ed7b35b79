"""`action=unblock` (ApiUnblock): lift a block, named by its id or its target."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.blocktarget import block_target
from atrium.wiki.api.actions.common import performer, token_param, write_spec
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import INTEGER, TAGS, USER, ModuleSpec, Param
from atrium.wiki.changes import blocks as block_changes
from atrium.wiki.messages import messages as msg

UNBLOCK = write_spec(
    "unblock",
    "ApiUnblock",
    (
        Param("id", INTEGER),
        Param("user", USER, subtypes=("name", "ip", "cidr", "id")),
        Param("userid", INTEGER, deprecated=True),
        Param("reason", default=""),
        Param("tags", TAGS, multi=True),
        token_param(),
    ),
)


async def unblock(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    given = [k for k in ("id", "user", "userid") if params[k] is not None]
    if not given:
        raise ApiUsageError(
            "missingparam", msg.missing_one_of(["id", "user", "userid"]), module=spec.name
        )
    if len(given) > 1:
        raise ApiUsageError("invalidparammix", msg.invalidparammix(given), module=spec.name)
    if not ctx.caller.allowed("block"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied-unblock"),
            module=spec.name,
        )
    target = None
    if params["id"] is None:
        target, _ = await block_target(ctx, params, spec.name, must_exist=False)
    with change_errors(spec.name):
        row = await ctx.db.write(
            block_changes.unblock,
            performer(ctx),
            params["id"],
            target,
            params["reason"],
            ctx.site,
        )
    return {
        "unblock": {
            "id": int(row["ipb_id"]),
            "user": str(row["ipb_address"]),
            "userid": int(row["ipb_user"]),
            "reason": params["reason"],
        }
    }


ACTION = Action(UNBLOCK, unblock, token="csrf")
