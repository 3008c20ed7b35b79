"""`action=tag` (ApiTag): add or remove change tags on revisions, log entries or recent changes."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import check_blocked, performer, token_param, write_spec
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import INTEGER, TAGS, ModuleSpec, Param
from atrium.wiki.changes import admin
from atrium.wiki.messages import messages as msg

TAG = write_spec(
    "tag",
    "ApiTag",
    (
        Param("rcid", INTEGER, multi=True),
        Param("revid", INTEGER, multi=True),
        Param("logid", INTEGER, multi=True),
        Param("add", TAGS, multi=True),
        Param("remove", multi=True),
        Param("reason", default=""),
        Param("tags", TAGS, multi=True),
        token_param(),
    ),
)


async def tag(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    if not (params["rcid"] or params["revid"] or params["logid"]):
        raise ApiUsageError(
            "missingparam",
            msg.missing_at_least_one_of(["rcid", "revid", "logid"]),
            module=spec.name,
        )
    if not (params["add"] or params["remove"]):
        raise ApiUsageError(
            "missingparam", msg.missing_at_least_one_of(["add", "remove"]), module=spec.name
        )
    # `add` is a tags parameter: TagsDef refuses undefined tags before the module runs.
    bad = await ctx.db.read(admin.disallowed_tags, list(params["add"]))
    if bad:
        key = "tags-apply-not-allowed-one" if len(bad) == 1 else "tags-apply-not-allowed-multi"
        raise ApiUsageError(
            "badtags",
            msg.api(key, msg.CommaList(tuple(bad)), len(bad)),
            module=spec.name,
            extra={"disallowedtags": bad},
        )
    if not ctx.caller.allowed("changetags"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-changetags")),
            module=spec.name,
        )
    await check_blocked(ctx, spec.name, None)
    who = performer(ctx)
    results = []
    for kind in ("rcid", "revid", "logid"):
        for ident in params[kind]:
            done = await ctx.db.write(
                admin.tag_change,
                who,
                kind,
                ident,
                list(params["add"]),
                list(params["remove"]),
                params["reason"],
            )
            item: dict[str, Any] = {kind: ident, "status": done.status}
            if done.error is not None:
                item["errors"] = [{"type": "error", "code": done.error[0], "text": done.error[1]}]
            elif done.noop:
                ctx.out.flag_if(item, "noop", True)
            else:
                item["actionlogid"] = done.log_id
                item["added"] = done.added
                item["removed"] = done.removed
            results.append(item)
    return {"tag": results}


ACTION = Action(TAG, tag, token="csrf")
