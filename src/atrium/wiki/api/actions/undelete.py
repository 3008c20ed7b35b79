"""`action=undelete` (ApiUndelete): restore deleted revisions (and file versions) of a page."""

from __future__ import annotations

import contextlib
from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import (
    apply_watchlist,
    check_blocked,
    parse_title,
    performer,
    prefixed,
    token_param,
    watchlist_param,
    write_spec,
)
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.params import BOOLEAN, INTEGER, TAGS, TIMESTAMP, ModuleSpec, Param
from atrium.wiki.changes import ChangeError, rendered_edit
from atrium.wiki.titles import Title

UNDELETE = write_spec(
    "undelete",
    "ApiUndelete",
    (
        Param("title", required=True),
        Param("reason", default=""),
        Param("tags", TAGS, multi=True),
        Param("timestamps", TIMESTAMP, multi=True),
        Param("fileids", INTEGER, multi=True),
        Param("undeletetalk", BOOLEAN),
        watchlist_param(),
        token_param(),
    ),
)


async def undelete(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    title = parse_title(ctx, params["title"], spec.name)
    await check_blocked(ctx, spec.name, title)
    who = performer(ctx)
    with change_errors(spec.name):
        done = await rendered_edit.undelete(
            ctx.db,
            ctx.site,
            who,
            title,
            params["reason"],
            params["timestamps"],
            params["fileids"],
        )
    if params["undeletetalk"] and title.ns % 2 == 0:
        # No deleted talk page: nothing to restore there, as MediaWiki.
        with contextlib.suppress(ChangeError):
            await rendered_edit.undelete(
                ctx.db,
                ctx.site,
                who,
                Title(title.ns + 1, title.dbkey),
                params["reason"],
                [],
            )
    await apply_watchlist(ctx, title, params["watchlist"], "watchundelete")
    return {
        "undelete": {
            "title": prefixed(ctx, title),
            "revisions": done.revisions,
            "fileversions": done.files,
            "reason": params["reason"],
        }
    }


ACTION = Action(UNDELETE, undelete, token="csrf")
