"""`action=managetags` (ApiManageTags): create, delete, activate and deactivate change tags."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import check_blocked, performer, token_param, write_spec
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.params import BOOLEAN, TAGS, ModuleSpec, Param, enum
from atrium.wiki.changes import admin

MANAGETAGS = write_spec(
    "managetags",
    "ApiManageTags",
    (
        Param("operation", enum("activate", "create", "deactivate", "delete"), required=True),
        Param("tag", required=True),
        Param("reason", default=""),
        Param("ignorewarnings", BOOLEAN),
        Param("tags", TAGS, multi=True),
        token_param(),
    ),
)


async def managetags(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    await check_blocked(ctx, spec.name, None)
    with change_errors(spec.name):
        log_id, warnings = await ctx.db.write(
            admin.manage_tag,
            performer(ctx),
            params["operation"],
            params["tag"],
            params["reason"],
            params["ignorewarnings"],
        )
    result: dict[str, Any] = {"operation": params["operation"], "tag": params["tag"]}
    ctx.out.flag_if(result, "success", True)
    if warnings:
        result["warnings"] = warnings
    result["logid"] = log_id
    return {"managetags": result}


ACTION = Action(MANAGETAGS, managetags, token="csrf")
