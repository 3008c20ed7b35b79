"""`action=options` (ApiOptions): change or reset the caller's preferences."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, ModuleSpec, Param, enum
from atrium.wiki.changes.accounts import set_options
from atrium.wiki.messages import messages as msg
from atrium.wiki.messages.language_facts import user_languages
from atrium.wiki.reads.users import DEFAULT_OPTIONS

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
        if name == "language" and value is not None and value not in user_languages():
            # The preference is a choice among the languages the wiki offers (HTMLSelectField).
            ctx.warn(
                spec,
                "validationfailed",
                msg.api("apiwarn-validationfailed", name, msg.message("htmlform-select-badoption")),
            )
        elif name in DEFAULT_OPTIONS or name.startswith("userjs-"):
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


ACTION = Action(OPTIONS, options, token="csrf")
