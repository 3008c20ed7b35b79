"""`action=clientlogin` (ApiClientLogin): AuthManager's sign-in with a name and password."""

from __future__ import annotations

from typing import Any

from atrium.wiki.accounts.password_policy import password_problems
from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.authresponse import fail, new_password_ui
from atrium.wiki.api.actions.signin import (
    NEW_PASSWORD_COOKIE,
    NewPasswordNeeded,
    authenticate,
    held_new_password_step,
    hold_new_password_step,
    login_token_ok,
    start_session,
)
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, ModuleSpec, Param
from atrium.wiki.changes.password_reset import change_temporary_password
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
    merge = bool(params["mergerequestfields"])
    if params["continue"]:
        return {"clientlogin": await _continue(ctx, form, merge)}
    name = ctx.params.get_raw("username") or ""
    password = ctx.params.get_raw("password") or ""
    ctx.params.get_raw("rememberMe")
    found = await authenticate(ctx, name, password, allow_bot=False)
    if isinstance(found, NewPasswordNeeded):
        hold_new_password_step(ctx, found)
        prompt = msg.api("resetpass-temp-emailed")
        answer = await new_password_ui(ctx, found.account.name, prompt, form, merge)
        return {"clientlogin": answer}
    if isinstance(found, msg.Message):
        return {"clientlogin": await fail(ctx, [found], form)}
    account, _ = found
    await start_session(ctx, account, None)
    return {"clientlogin": {"status": "PASS", "username": account.name}}


async def _continue(ctx: ApiContext, form: str, merge: bool) -> dict[str, Any]:
    """`logincontinue`: the new password after a temporary one (the only step that waits for
    an answer here), which then signs the caller in."""
    step = await held_new_password_step(ctx)
    if step is None:
        return await fail(ctx, [msg.api("authmanager-authn-not-in-progress")], form)
    account = step.account
    password = ctx.params.get_raw("password")
    retype = ctx.params.get_raw("retype")
    if not password or retype is None:
        # A required field left out: the request is not made, and the step asks again.
        prompt = msg.api("resetpass-temp-emailed")
        return await new_password_ui(ctx, account.name, prompt, form, merge)
    if password != retype:
        return await new_password_ui(ctx, account.name, msg.api("badretype"), form, merge)
    problems = password_problems(account.name, password)
    if problems:
        return await new_password_ui(ctx, account.name, problems[0], form, merge)
    await change_temporary_password(ctx.db, account.id, password, ctx.accounts)
    ctx.set_cookies[NEW_PASSWORD_COOKIE] = None
    ctx.end_sessions_for = account.id
    await start_session(ctx, account, None)
    return {"status": "PASS", "username": account.name}


ACTION = Action(CLIENTLOGIN, clientlogin)
