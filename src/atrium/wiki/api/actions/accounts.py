"""`action=createaccount` and `action=options`."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api import messages as msg
from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import performer
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, ModuleSpec, Param, enum, normalize_username
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.accounts import set_options
from atrium.wiki.changes.registration import register
from atrium.wiki.sessions import TOKEN_SALTS, check_token
from atrium.wiki.usernames import is_creatable
from atrium.wiki.users import DEFAULT_OPTIONS

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

OPTIONS = ModuleSpec(
    "options",
    "ApiOptions",
    "action",
    "",
    (
        Param("reset", BOOLEAN),
        Param(
            "resetkinds",
            enum(
                "all",
                "registered",
                "registered-checkmatrix",
                "registered-multiselect",
                "special",
                "unused",
                "userjs",
            ),
            multi=True,
            default="all",
        ),
        Param("change", multi=True),
        Param("optionname"),
        Param("optionvalue"),
        Param("token", required=True, sensitive=True, tokentype="csrf"),
    ),
    readrights=True,
    writerights=True,
    mustbeposted=True,
)


def _fail(message: str, code: str) -> dict[str, Any]:
    """ApiAuthManagerHelper's FAIL response: `messagecode` is ApiMessage's code for the message
    (ApiMessageTrait::$messageMap turns `noname` into `invaliduser`); a refused creation
    request cannot be preserved."""
    return {
        "createaccount": {
            "status": "FAIL",
            "message": message,
            "messagecode": "invaliduser" if code == "noname" else code,
            "canpreservestate": False,
        }
    }


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
    name = normalize_username(raw["username"] or "")
    if name is None or not is_creatable(name):
        return _fail("You have not specified a valid username.", "noname")
    password = raw["password"] or ""
    if raw["retype"] is not None and raw["retype"] != password:
        return _fail("The passwords you entered do not match.", "badretype")
    if len(password) < 1:
        return _fail("Passwords must be at least 1 character.", "passwordtooshort")
    if password.lower() == name.lower():
        return _fail("Your password must be different from your username.", "password-name-match")
    try:
        # A logged-in creator makes the account for someone else (newusers/create2).
        creator = performer(ctx) if ctx.caller.registered else None
        await ctx.db.write(
            lambda conn: register(
                conn,
                name,
                password,
                creator,
                reason=raw["reason"] or "",
                email=raw["email"] or "",
                real_name=raw["realname"] or "",
            )
        )
    except ChangeError as exc:
        return _fail(exc.text, exc.code)
    return {"createaccount": {"status": "PASS", "username": name}}


async def options(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    caller = ctx.caller
    if not caller.registered:
        raise ApiUsageError(
            "notloggedin",
            msg.api("apierror-mustbeloggedin", msg.message("action-editmyoptions")),
            module="options",
        )
    if not params["reset"] and not params["change"] and params["optionname"] is None:
        raise ApiUsageError(
            "missingparam",
            msg.missing_at_least_one_of(["reset", "change", "optionname"]),
            module="options",
        )
    changes: dict[str, str | None] = {}
    for item in params["change"]:
        name, sep, value = item.partition("=")
        changes[name] = value if sep else None
    if params["optionname"] is not None:
        changes[params["optionname"]] = params["optionvalue"]
    accepted: dict[str, str | None] = {}
    for name, value in changes.items():
        if name in DEFAULT_OPTIONS or name.startswith("userjs-"):
            accepted[name] = value
        else:
            ctx.warn(
                spec,
                "validationfailed",
                msg.api(
                    "apiwarn-validationfailed",
                    name,
                    msg.message("apiwarn-validationfailed-badpref"),
                ),
            )
    await ctx.db.write(set_options, caller.id, accepted, params["reset"])
    return {"options": "success"}


ACTIONS = (
    Action(CREATEACCOUNT, createaccount),
    Action(OPTIONS, options, token="csrf"),
)
