"""`action=logout` (ApiLogout): end the caller's session."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.params import ModuleSpec, Param
from atrium.wiki.changes.sessions import destroy_session

LOGOUT = ModuleSpec(
    "logout",
    "ApiLogout",
    "action",
    "",
    (Param("token", required=True, sensitive=True, tokentype="csrf"),),
    readrights=False,
    mustbeposted=True,
)


async def logout(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    ctx.read(spec)
    if ctx.session is not None:
        await ctx.db.write(destroy_session, ctx.session.id)
    ctx.end_session = True
    return {}


ACTION = Action(LOGOUT, logout, token="csrf")
