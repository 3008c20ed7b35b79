"""`action=changecontentmodel` (ApiChangeContentModel): save a page's text again in another
content model."""

from __future__ import annotations

from typing import Any

from atrium.wiki import content_models
from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import (
    blocked_error,
    check_rate_limit,
    performer,
    prefixed,
    target,
    token_param,
    write_spec,
)
from atrium.wiki.api.context import ApiContext, change_error
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, INTEGER, TAGS, ModuleSpec, Param, enum
from atrium.wiki.changes import ChangeError, admin
from atrium.wiki.changes.blocks import Blocked
from atrium.wiki.changes.content_model import change_content_model
from atrium.wiki.messages import messages as msg
from atrium.wiki.messages.messages import Message
from atrium.wiki.reads import pages as page_reads

CHANGECONTENTMODEL = write_spec(
    "changecontentmodel",
    "ApiChangeContentModel",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param("summary"),
        Param("tags", TAGS, multi=True),
        Param("model", enum(*sorted(content_models.EDITABLE)), required=True),
        Param("bot", BOOLEAN),
        token_param(),
    ),
)


async def changecontentmodel(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    title = await target(ctx, params, spec.name)
    if title.ns < 0:
        raise ApiUsageError(
            "pagecannotexist", msg.api("apierror-pagecannotexist"), module=spec.name
        )
    rows = await ctx.db.read(page_reads.pages_by_titles, [(title.ns, title.dbkey)])
    if not rows:
        raise ApiUsageError(
            "changecontentmodel-missingtitle",
            msg.api("apierror-changecontentmodel-missingtitle"),
            module=spec.name,
        )
    if not ctx.caller.allowed("editcontentmodel"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-editcontentmodel")),
            module=spec.name,
        )
    await check_rate_limit(ctx, "editcontentmodel", spec.name)
    # 1.39 fails with an internal error when no summary is given; an empty one is what it
    # means.
    reason = params["summary"] or ""
    try:
        done = await ctx.db.write(
            change_content_model,
            ctx.site,
            performer(ctx),
            title,
            prefixed(ctx, title),
            params["model"],
            reason,
            tuple(params["tags"]),
            bool(params["bot"]),
        )
    except Blocked as exc:
        raise blocked_error(ctx, spec.name, exc.block) from exc
    except ChangeError as exc:
        if exc.code.startswith("tags-apply-not-allowed"):
            bad = await ctx.db.read(admin.disallowed_tags, list(params["tags"]))
            raise ApiUsageError(
                "badtags", Message(exc.key, exc.params), module=spec.name,
                extra={"disallowedtags": bad},
            ) from exc  # fmt: skip
        raise change_error(exc, spec.name) from exc
    return {
        "changecontentmodel": {
            "result": "Success",
            "title": prefixed(ctx, title),
            "pageid": done.page_id,
            "contentmodel": done.model,
            "logid": done.log_id,
            "revid": done.rev_id,
        }
    }


ACTION = Action(CHANGECONTENTMODEL, changecontentmodel, token="csrf")
