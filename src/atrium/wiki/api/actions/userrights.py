"""`action=userrights` (ApiUserrights): add a user to groups or remove them, within
what the caller's groups may change."""

from __future__ import annotations

from typing import Any

from atrium.wiki.accounts.rights import CHANGEABLE_BY
from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import check_blocked, performer, token_param, write_spec
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import INTEGER, TAGS, USER, ModuleSpec, Param, enum
from atrium.wiki.changes import admin
from atrium.wiki.changes.expiry import INFINITY, api_expiry, checked_expiry
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads.users import account_by_id, account_by_name, is_hidden
from atrium.wiki.timestamps import now14

_GROUPS = enum(*sorted({g for groups in CHANGEABLE_BY.values() for g in groups}))


USERRIGHTS = write_spec(
    "userrights",
    "ApiUserrights",
    (
        Param("user", USER, subtypes=("name", "id")),
        Param("userid", INTEGER, deprecated=True),
        Param("add", _GROUPS, multi=True),
        Param("expiry", multi=True, default="infinite", allowsduplicates=True),
        Param("remove", _GROUPS, multi=True),
        Param("reason", default=""),
        token_param("userrights"),
        Param("tags", TAGS, multi=True),
    ),
)


async def userrights(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    if params["user"] is None and params["userid"] is None:
        raise ApiUsageError(
            "missingparam", msg.missing_one_of(["user", "userid"]), module=spec.name
        )
    user = params["user"]
    if params["userid"] is not None or str(user).startswith("#"):
        account = await ctx.db.read(
            account_by_id, params["userid"] if params["userid"] is not None else int(str(user)[1:])
        )
    else:
        account = await ctx.db.read(account_by_name, str(user))
    if (
        account is not None
        and not ctx.caller.allowed("hideuser")
        and await ctx.db.read(is_hidden, account.id)
    ):
        account = None  # UserrightsPage::fetchUser: a hidden user is nobody to them
    if account is None:
        raise ApiUsageError(
            "nosuchuser",
            msg.api("nosuchusershort", str(user)),
            module=spec.name,
        )
    expiries: list[str] = params["expiry"]
    if len(expiries) != 1 and len(expiries) != len(params["add"]):
        raise ApiUsageError(
            "toofewexpiries",
            msg.api("apierror-toofewexpiries", len(expiries), len(params["add"])),
            module=spec.name,
        )
    if len(expiries) == 1:
        expiries = expiries * len(params["add"])
    now = now14()
    add: list[tuple[str, str]] = []
    for group, text in zip(params["add"], expiries, strict=True):
        with change_errors(spec.name):
            add.append((group, checked_expiry(text, now)))
    await check_blocked(ctx, spec.name, None)
    # The groups a workspace member's chat role implies are the chat's to change.
    locked = await ctx.accounts.locked_groups("wiki", account.id) if ctx.accounts else frozenset()
    kept = sorted(locked & set(params["remove"]))
    if kept:
        raise ApiUsageError(
            "cantremove",
            msg.api("apierror-cantremove-role-group", ", ".join(kept), len(kept)),
            module=spec.name,
        )
    with change_errors(spec.name):
        change = await ctx.db.write(
            admin.change_groups,
            performer(ctx),
            ctx.caller.all_groups,
            account.id,
            account.name,
            add,
            list(params["remove"]),
            params["reason"],
            ctx.site,
        )
    result: dict[str, Any] = {"user": account.name, "userid": account.id, "added": change.added}
    if change.added and any(e != INFINITY for g, e in add if g in change.added):
        result["added"] = [
            {"group": g, "expiry": api_expiry(e)} for g, e in add if g in change.added
        ]
    result["removed"] = change.removed
    return {"userrights": result}


ACTION = Action(USERRIGHTS, userrights, token="userrights")
