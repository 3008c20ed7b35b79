"""`action=createaccount` (ApiAMCreateAccount): register an account with a name and password."""

from __future__ import annotations

from typing import Any

from atrium.core import workers
from atrium.wiki.accounts.password_policy import password_problems
from atrium.wiki.accounts.usernames import is_creatable, normalize_username
from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.authresponse import fail
from atrium.wiki.api.actions.common import performer
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, ModuleSpec, Param, enum
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.registration import register
from atrium.wiki.limits import ACCOUNT_CREATION, duration
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads.sessions import TOKEN_SALTS, check_token
from atrium.wiki.reads.users import account_by_name, hash_password

CREATEACCOUNT = ModuleSpec(
    "createaccount",
    "ApiAMCreateAccount",
    "action",
    "create",
    (
        Param("requests", multi=True),
        Param("messageformat", enum("html", "none", "raw", "wikitext"), default="wikitext"),
        Param("mergerequestfields", BOOLEAN),
        Param("preservestate", BOOLEAN),
        Param("returnurl"),
        Param("continue", BOOLEAN),
        Param("token", required=True, sensitive=True, tokentype="createaccount"),
    ),
    readrights=False,
    writerights=True,
    mustbeposted=True,
)


async def createaccount(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    if params["returnurl"] is None and not params["continue"]:
        raise ApiUsageError(
            "missingparam",
            msg.missing_one_of(["createreturnurl", "createcontinue"]),
            module="createaccount",
        )
    if not check_token(ctx.session_secret, TOKEN_SALTS["createaccount"], params["token"], True):
        raise ApiUsageError(
            "badtoken",
            msg.api("apierror-badtoken"),
            module="createaccount",
        )
    if not ctx.caller.allowed("createaccount"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-createaccount")),
            module="createaccount",
        )
    raw = {
        key: ctx.params.get_raw(key)
        for key in ("username", "password", "retype", "email", "realname", "reason")
    }
    form = params["messageformat"]
    # AuthManager's order: the name (canCreateAccount), then the password request (a missing or
    # empty password or retype drops it: no provider can create), then the password checks.
    name = normalize_username(raw["username"] or "")
    if name is None or not is_creatable(name):
        return {"createaccount": await fail(ctx, [msg.api("noname")], form)}
    if await ctx.db.read(account_by_name, name) is not None:
        return {"createaccount": await fail(ctx, [msg.api("userexists")], form)}
    if ctx.limits is not None and await ctx.limits.account_creation_refused(
        ctx.caller, ctx.client_ip
    ):
        count, window = ACCOUNT_CREATION
        refusal = msg.api("acct_creation_throttle_hit", count, duration(window))
        return {"createaccount": await fail(ctx, [refusal], form)}
    password, retype = raw["password"] or "", raw["retype"] or ""
    if not password or not retype:
        refusal = msg.api("authmanager-create-no-primary")
        return {"createaccount": await fail(ctx, [refusal], form)}
    if retype != password:
        return {"createaccount": await fail(ctx, [msg.api("badretype")], form)}
    problems = password_problems(name, password)
    if problems:
        return {"createaccount": await fail(ctx, problems, form)}
    try:
        # A logged-in creator makes the account for someone else (newusers/create2).
        creator = performer(ctx) if ctx.caller.registered else None
        stored = await workers.run(hash_password, password)
        await ctx.db.write(
            lambda conn: register(
                conn,
                name,
                password,
                creator,
                reason=raw["reason"] or "",
                email=raw["email"] or "",
                real_name=raw["realname"] or "",
                password_hash=stored,
                site=ctx.site,
            )
        )
    except ChangeError as exc:  # made meanwhile by another request
        refusal = msg.api(exc.key, *exc.params)
        return {"createaccount": await fail(ctx, [refusal], form)}
    return {"createaccount": {"status": "PASS", "username": name}}


ACTION = Action(CREATEACCOUNT, createaccount)
