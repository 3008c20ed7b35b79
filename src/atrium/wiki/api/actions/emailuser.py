"""`action=emailuser` (ApiEmailUser): mail another user through the wiki, under the rules of
Special:EmailUser (changes/email_user.py) and the `emailuser` rate limit."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import check_rate_limit, token_param
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.params import BOOLEAN, USER, ModuleSpec, Param
from atrium.wiki.changes.email_user import check_sender, check_target, email_user

EMAILUSER = ModuleSpec(
    "emailuser",
    "ApiEmailUser",
    "action",
    "",
    (
        Param("target", USER, required=True, subtypes=("name",)),
        Param("subject"),
        Param("text", "text", required=True),
        Param("ccme", BOOLEAN),
        token_param(),
    ),
    writerights=True,
    mustbeposted=True,
)


async def emailuser(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    target = str(params["target"])
    with change_errors(spec.path):
        check_sender(ctx.caller)
        await ctx.db.read(check_target, target)
    await check_rate_limit(ctx, "emailuser", spec.path)
    subject = params.get("subject") or f'{ctx.site.sitename} email from user "{ctx.caller.name}"'
    with change_errors(spec.path):
        await ctx.db.write(
            email_user, ctx.site, ctx.caller, target, subject, params["text"], bool(params["ccme"])
        )
    return {"emailuser": {"result": "Success"}}


ACTION = Action(EMAILUSER, emailuser, token="csrf")
