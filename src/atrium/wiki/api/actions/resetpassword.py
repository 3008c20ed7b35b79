"""`action=resetpassword` (ApiResetPassword): mail temporary passwords to the accounts a user
name or an email address names. The answer is `success` whatever it found."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import check_rate_limit, token_param
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import USER, ModuleSpec, Param
from atrium.wiki.changes.password_reset import reset_passwords, reset_refused
from atrium.wiki.messages import messages as msg

RESETPASSWORD = ModuleSpec(
    "resetpassword",
    "ApiResetPassword",
    "action",
    "",
    (Param("user", USER, subtypes=("name",)), Param("email"), token_param()),
    readrights=False,
    writerights=True,
    mustbeposted=True,
)


async def resetpassword(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    user, email = params.get("user"), params.get("email")
    if not user and not email:
        raise ApiUsageError("missingparam", msg.missing_one_of(["user", "email"]), module=spec.path)
    if await ctx.db.read(reset_refused, ctx.caller.id or None, ctx.client_ip):
        raise ApiUsageError(
            "blocked-mailpassword", msg.api("blocked-mailpassword"), module=spec.path
        )
    await check_rate_limit(ctx, "mailpassword", spec.path)
    caller = ctx.caller.name if ctx.caller.registered else None
    await reset_passwords(ctx.db, ctx.site, user, email, ctx.client_ip, caller)
    return {"resetpassword": {"status": "success"}}


ACTION = Action(RESETPASSWORD, resetpassword, token="csrf")
