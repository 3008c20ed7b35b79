"""`action=patrol` (ApiPatrol): mark a recent change or a revision as patrolled."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import (
    check_blocked,
    performer,
    prefixed,
    token_param,
    write_spec,
)
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import INTEGER, TAGS, ModuleSpec, Param
from atrium.wiki.changes import pageops
from atrium.wiki.messages import messages as msg
from atrium.wiki.titles import Title

PATROL = write_spec(
    "patrol",
    "ApiPatrol",
    (
        Param("rcid", INTEGER),
        Param("revid", INTEGER),
        Param("tags", TAGS, multi=True),
        token_param("patrol"),
    ),
)


async def patrol(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    if (params["rcid"] is None) == (params["revid"] is None):
        names = ["rcid", "revid"]
        if params["rcid"] is None:
            raise ApiUsageError("missingparam", msg.missing_one_of(names), module=spec.name)
        raise ApiUsageError("invalidparammix", msg.invalidparammix(names), module=spec.name)
    await check_blocked(ctx, spec.name, None)
    with change_errors(spec.name):
        row = await ctx.db.write(
            pageops.patrol, ctx.site, performer(ctx), params["rcid"], params["revid"]
        )
    title = Title(int(row["rc_namespace"]), str(row["rc_title"]))
    return {"patrol": {"rcid": int(row["rc_id"]), "ns": title.ns, "title": prefixed(ctx, title)}}


ACTION = Action(PATROL, patrol, token="patrol")
