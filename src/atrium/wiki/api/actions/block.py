"""`action=block` (ApiBlock): block a user, an IP address or a range, or change a block."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.blocktarget import block_target
from atrium.wiki.api.actions.common import (
    apply_watchlist,
    check_blocked,
    parse_title,
    performer,
    prefixed,
    token_param,
    write_spec,
)
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, INTEGER, NAMESPACE, TAGS, TITLE, USER, ModuleSpec, Param
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes import blocks as block_changes
from atrium.wiki.changes.expiry import api_expiry, checked_expiry
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import NS_USER, Title

BLOCK = write_spec(
    "block",
    "ApiBlock",
    (
        Param("user", USER, subtypes=("name", "ip", "cidr", "id")),
        Param("userid", INTEGER, deprecated=True),
        Param("expiry", default="never"),
        Param("reason", default=""),
        Param("anononly", BOOLEAN),
        Param("nocreate", BOOLEAN),
        Param("autoblock", BOOLEAN),
        Param("noemail", BOOLEAN),
        Param("hidename", BOOLEAN),
        Param("allowusertalk", BOOLEAN),
        Param("reblock", BOOLEAN),
        Param("watchuser", BOOLEAN),
        Param("tags", TAGS, multi=True),
        Param("partial", BOOLEAN),
        Param("pagerestrictions", TITLE, multi=True),
        Param("namespacerestrictions", NAMESPACE, multi=True, allspecifier="*"),
        token_param(),
    ),
)


async def block(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    target, user_id = await block_target(ctx, params, spec.name)
    if not ctx.caller.allowed("block"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-block")),
            module=spec.name,
        )
    # A blocked administrator may not block others (only themselves lifted with unblockself).
    await check_blocked(ctx, spec.name, None)
    expiry_text = params["expiry"]
    try:
        expiry = checked_expiry(expiry_text, now14())
    except ChangeError as exc:
        if exc.code == "pastexpiry":
            raise ApiUsageError(
                "ipb_expiry_old",
                msg.api("ipb_expiry_old"),
                module=spec.name,
            ) from exc
        raise ApiUsageError(
            "invalidexpiry",
            msg.api("ipb_expiry_invalid"),
            module=spec.name,
        ) from exc
    pages: list[tuple[int, Title]] = []
    for text in params["pagerestrictions"]:
        title = parse_title(ctx, text, spec.name)
        rows = await ctx.db.read(page_reads.pages_by_titles, [(title.ns, title.dbkey)])
        if rows:
            pages.append((int(rows[0]["page_id"]), title))
    request = block_changes.BlockRequest(
        target=target,
        user_id=user_id,
        expiry=expiry,
        duration=expiry_text,
        reason=params["reason"],
        anononly=params["anononly"],
        nocreate=params["nocreate"],
        autoblock=params["autoblock"],
        noemail=params["noemail"],
        hidename=params["hidename"],
        allowusertalk=params["allowusertalk"],
        reblock=params["reblock"],
        partial=params["partial"],
        pages=pages,
        namespaces=list(params["namespacerestrictions"]),
    )
    with change_errors(spec.name):
        block_id, _log = await ctx.db.write(block_changes.block, performer(ctx), request, ctx.site)
    if params["watchuser"] and ctx.caller.registered:
        await apply_watchlist(ctx, Title(NS_USER, target.replace(" ", "_")), "watch", "")
    out = ctx.out
    result: dict[str, Any] = {
        "user": params["user"] if params["user"] is not None else target,
        "userID": user_id,
        "expiry": api_expiry(expiry),
        "id": block_id,
        "reason": params["reason"],
    }
    for key in (
        "anononly",
        "nocreate",
        "autoblock",
        "noemail",
        "hidename",
        "allowusertalk",
        "watchuser",
        "partial",
    ):
        out.flag(result, key, params[key])
    result["pagerestrictions"] = (
        [prefixed(ctx, t) for _, t in pages] if params["pagerestrictions"] else None
    )
    result["namespacerestrictions"] = (
        list(params["namespacerestrictions"]) if params["namespacerestrictions"] else None
    )
    return {"block": result}


ACTION = Action(BLOCK, block, token="csrf")
