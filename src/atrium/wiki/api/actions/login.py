"""`action=login` (ApiLogin): sign in with a name and password, or a bot password."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.signin import (
    NewPasswordNeeded,
    authenticate,
    login_token_ok,
    start_session,
)
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.params import PASSWORD, ModuleSpec, Param
from atrium.wiki.changes.sessions import create_session
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads.sessions import TOKEN_SALTS

LOGIN = ModuleSpec(
    "login",
    "ApiLogin",
    "action",
    "lg",
    (
        Param("name"),
        Param("password", PASSWORD, sensitive=True),
        Param("domain"),
        Param("token", sensitive=True, tokentype="login"),
    ),
    readrights=False,
    writerights=False,
    mustbeposted=True,
)


async def login(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    if params["token"] is None or not login_token_ok(ctx, params["token"]):
        if params["token"] is None:
            ctx.warn(
                spec,
                "deprecation",
                msg.api("apiwarn-deprecation-login-token"),
            )
        result: dict[str, Any] = {
            "result": "NeedToken" if params["token"] is None else "WrongToken"
        }
        if params["token"] is None:
            from atrium.wiki.reads.sessions import make_token

            if ctx.session_secret is None:
                ctx.new_session = await ctx.db.write(create_session, None, None)
            assert ctx.session_secret is not None
            result["token"] = make_token(ctx.session_secret, TOKEN_SALTS["login"])
        return {"login": result}
    name = params["name"] or ""
    password = params["password"] or ""
    found = await authenticate(ctx, name, password, allow_bot=True)
    if isinstance(found, NewPasswordNeeded):
        # AuthManager answers UI (a new password first), which action=login cannot ask for.
        reason = await ctx.format_message(msg.api("api-login-fail-aborted"), bc_plain=True)
        return {"login": {"result": "Aborted", "reason": reason}}
    if isinstance(found, msg.Message):
        # ApiLogin::formatMessage: English plain text in bc, else the error format's object
        reason = await ctx.format_message(found, bc_plain=True)
        return {"login": {"result": "Failed", "reason": reason}}
    account, bot_app = found
    if bot_app is None:
        ctx.warn(
            spec,
            "deprecation",
            msg.api("apiwarn-deprecation-login-botpw"),
        )
    await start_session(ctx, account, bot_app)
    return {"login": {"result": "Success", "lguserid": account.id, "lgusername": account.name}}


ACTION = Action(LOGIN, login)
