"""`action=clientlogin` (ApiClientLogin): AuthManager's sign-in with a name and password."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.authresponse import fail
from atrium.wiki.api.actions.signin import authenticate, login_token_ok, start_session
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, ModuleSpec, Param
from atrium.wiki.messages import messages as msg

CLIENTLOGIN = ModuleSpec(
    "clientlogin",
    "ApiClientLogin",
    "action",
    "login",
    (
        Param("requests", multi=True),
        Param("messageformat", ("html", "none", "raw", "wikitext"), default="wikitext"),
        Param("mergerequestfields", BOOLEAN),
        Param("preservestate", BOOLEAN),
        Param("returnurl"),
        Param("continue", BOOLEAN),
        Param("token", required=True, sensitive=True, tokentype="login"),
    ),
    readrights=False,
    writerights=False,
    mustbeposted=True,
)


async def clientlogin(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    if params["returnurl"] is None and not params["continue"]:
        raise ApiUsageError(
            "missingparam",
            msg.missing_one_of(["loginreturnurl", "logincontinue"]),
            module="clientlogin",
        )
    if not login_token_ok(ctx, params["token"]):
        raise ApiUsageError(
            "badtoken",
            msg.api("apierror-badtoken"),
            module="clientlogin",
        )
    form = params["messageformat"]
    if params["continue"]:
        refusal = msg.api("authmanager-authn-not-in-progress")
        return {"clientlogin": await fail(ctx, [refusal], form)}
    name = ctx.params.get_raw("username") or ""
    password = ctx.params.get_raw("password") or ""
    ctx.params.get_raw("rememberMe")
    found = await authenticate(ctx, name, password, allow_bot=False)
    if isinstance(found, msg.Message):
        return {"clientlogin": await fail(ctx, [found], form)}
    account, _ = found
    await start_session(ctx, account, None)
    return {"clientlogin": {"status": "PASS", "username": account.name}}


ACTION = Action(CLIENTLOGIN, clientlogin)
