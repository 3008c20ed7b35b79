"""`list=tags`: the software's tags and the defined ones, by name, continue `<name>`; as
ApiQueryTags."""

from __future__ import annotations

import html
from typing import Any

import sqlalchemy as sa

from atrium.wiki import schema
from atrium.wiki.api.params import (
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.pageset import QueryModule, QueryRun

CTD = schema.change_tag_def

# ChangeTags::getSoftwareTags: the core tags, with their English display name and description
# (MediaWiki's `tag-<name>` and `tag-<name>-description` messages).
SOFTWARE_TAGS: dict[str, tuple[str, str]] = {
    "mw-blank": ("Blanking", "Edits that blank a page"),
    "mw-changed-redirect-target": (
        "Redirect target changed",
        "Edits that change the target of a redirect",
    ),
    "mw-contentmodelchange": (
        "content model change",
        "Edits that [https://www.mediawiki.org/wiki/Special:MyLanguage/Help:ChangeContentModel "
        "change the content model] of a page",
    ),
    "mw-manual-revert": (
        "Manual revert",
        "Edits that manually restore the page to an exact previous state",
    ),
    "mw-new-redirect": (
        "New redirect",
        "Edits that create a new redirect or change a page to a redirect",
    ),
    "mw-removed-redirect": (
        "Removed redirect",
        "Edits that change an existing redirect to a non-redirect",
    ),
    "mw-replace": ("Replaced", "Edits that remove more than 90% of the content of a page"),
    "mw-reverted": ("Reverted", "Edits that were later reverted by a different edit"),
    "mw-rollback": ("Rollback", "Edits that roll back previous edits using the rollback link"),
    "mw-server-side-upload": (
        "Server-side upload",
        "Media files that were uploaded via a maintenance script",
    ),
    "mw-undo": ("Undo", "Edits that undo previous edits using the undo link"),
}


TAGS = ModuleSpec(
    "tags",
    "ApiQueryTags",
    "list",
    "tg",
    (
        Param("continue"),
        limit(default=10),
        Param(
            "prop",
            enum("active", "defined", "description", "displayname", "hitcount", "source"),
            default="",
            multi=True,
        ),
    ),
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    out = q.ctx.out
    props = set(params["prop"] or ())
    stored = await q.ctx.db.read(lambda conn: conn.all(sa.select(CTD)))
    by_name = {str(r["ctd_name"]): r for r in stored}
    names = sorted(set(by_name) | set(SOFTWARE_TAGS))
    if params["continue"] is not None:
        names = [n for n in names if n >= params["continue"]]
    limit = params["limit"]
    shown, rest = names[:limit], names[limit:]
    items = []
    for name in shown:
        row = by_name.get(name)
        software = name in SOFTWARE_TAGS
        manual = row is not None and bool(row["ctd_user_defined"])
        tag: dict[str, Any] = {"name": name}
        if "displayname" in props:
            tag["displayname"] = SOFTWARE_TAGS[name][0] if software else html.escape(name)
        if "description" in props:
            tag["description"] = SOFTWARE_TAGS[name][1] if software else ""
        if "hitcount" in props:
            tag["hitcount"] = int(row["ctd_count"]) if row is not None else 0
        if "defined" in props:
            out.flag(tag, "defined", software or manual)
        if "source" in props:
            tag["source"] = (["extension"] if software else []) + (["manual"] if manual else [])
        if "active" in props:
            out.flag(tag, "active", software or manual)
        items.append(tag)
    q.data["tags"] = items
    if rest:
        q.continuation.add(TAGS, "continue", rest[0])


MODULE = QueryModule(TAGS, run)
