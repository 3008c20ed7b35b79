"""The page set of `action=purge` and `action=watch` (`titles`, `pageids`, `revids`): its
parameters, its resolution and the flags each entry carries (ApiPageSet)."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions.common import parse_title, prefixed
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, INTEGER, Param
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.titles import Title

PAGESET = (
    Param("continue"),
    Param("titles", multi=True),
    Param("pageids", INTEGER, multi=True),
    Param("revids", INTEGER, multi=True),
    Param("redirects", BOOLEAN),
    Param("converttitles", BOOLEAN),
)


async def resolve_pages(
    ctx: ApiContext, params: dict[str, Any], module: str
) -> list[dict[str, Any]]:
    """The pages named by `titles`, `pageids` or `revids`, in MediaWiki's result order (special
    and missing titles first, then existing pages by id)."""
    given = [k for k in ("titles", "pageids", "revids") if params[k]]
    if len(given) > 1:
        raise ApiUsageError(
            "multisource",
            msg.api("apierror-invalidparammix-cannotusewith", given[1], given[0]),
            module=module,
        )
    entries: list[dict[str, Any]] = []
    existing: list[Any] = []
    if params["titles"]:
        titles = []
        for text in params["titles"]:
            try:
                titles.append(parse_title(ctx, text, module))
            except ApiUsageError:
                entries.append({"title": text, "invalid": True})
        special = [t for t in titles if t.ns < 0]
        normal = [t for t in titles if t.ns >= 0]
        rows = await ctx.db.read(page_reads.pages_by_titles, [(t.ns, t.dbkey) for t in normal])
        found = {(int(r["page_namespace"]), str(r["page_title"])) for r in rows}
        for t in special:
            entries.append(
                {"ns": t.ns, "title": prefixed(ctx, t), "special": True, "missing": True}
            )
        for t in normal:
            if (t.ns, t.dbkey) not in found:
                entries.append({"ns": t.ns, "title": prefixed(ctx, t), "missing": True})
        existing = list(rows)
    elif params["pageids"]:
        rows = await ctx.db.read(page_reads.pages_by_ids, params["pageids"])
        seen = {int(r["page_id"]) for r in rows}
        entries += [{"pageid": i, "missing": True} for i in params["pageids"] if i not in seen]
        existing = list(rows)
    elif params["revids"]:
        # ApiPageSet::initFromRevIDs: the pages of the live revisions; the others are missing.
        revisions = await ctx.db.read(page_reads.pages_of_revisions, params["revids"])
        live = {int(r["rev_id"]) for r in revisions}
        entries += [{"revid": i, "missing": True} for i in params["revids"] if i not in live]
        page_ids = list(dict.fromkeys(int(r["rev_page"]) for r in revisions))
        existing = list(await ctx.db.read(page_reads.pages_by_ids, page_ids))
    existing.sort(key=lambda r: int(r["page_id"]))
    for r in existing:
        t = Title(int(r["page_namespace"]), str(r["page_title"]))
        entries.append(
            {"ns": t.ns, "title": prefixed(ctx, t), "pageid": int(r["page_id"]), "_title": t}
        )
    return entries


def page_flags(ctx: ApiContext, entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in entry.items():
        if key.startswith("_"):
            continue
        if value is True:
            ctx.out.flag_if(out, key, True)
        else:
            out[key] = value
    return out
