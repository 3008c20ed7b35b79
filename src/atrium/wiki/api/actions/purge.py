"""`action=purge` (ApiPurge): drop the rendered copies of a set of pages."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import write_spec
from atrium.wiki.api.actions.pageset import PAGESET, page_flags, resolve_pages
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.params import BOOLEAN, ModuleSpec, Param
from atrium.wiki.changes import pageops

PURGE = write_spec(
    "purge",
    "ApiPurge",
    (Param("forcelinkupdate", BOOLEAN), Param("forcerecursivelinkupdate", BOOLEAN), *PAGESET),
)


async def purge(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    entries = await resolve_pages(ctx, params, spec.name)
    results = []
    for entry in entries:
        item = page_flags(ctx, {k: v for k, v in entry.items() if k != "pageid"})
        if "_title" in entry:
            await ctx.db.write(pageops.purge, entry["pageid"])
            ctx.out.flag_if(item, "purged", True)
            if params["forcelinkupdate"] or params["forcerecursivelinkupdate"]:
                rendered = await ctx.db.read_rendering(
                    pageops.render_current_links, ctx.site, entry["pageid"]
                )
                await ctx.db.write(pageops.refresh_links, ctx.site, entry["pageid"], rendered)
                ctx.out.flag_if(item, "linkupdate", True)
        results.append(item)
    result: dict[str, Any] = {}
    ctx.out.flag_if(result, "batchcomplete", True)
    result["purge"] = results
    return result


ACTION = Action(PURGE, purge)
