"""`Special:MergeHistory`: pick a source and a destination page, see the source's revisions
older than the destination's first one, and merge those up to a chosen point into the
destination — the same change as the API's `action=mergehistory`. Restricted to `mergehistory`;
a merge needs the session's token and is made on the pages' ids (the titles may have moved since
the list was shown). Deleted authors and summaries show as removed to readers who may not see
them."""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup
from starlette.responses import Response

from atrium.core.db import Row
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.history_merge import merge_history
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.reads.mergeable import mergeable_revisions
from atrium.wiki.reads.pages import pages_by_ids, pages_by_titles
from atrium.wiki.titles import Title
from atrium.wiki.web.comments import with_comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.special.blocknotice import block_notice, block_of
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.log_extract import log_extract
from atrium.wiki.web.special.msg import msg_html, msg_links
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    permission_error,
    render,
    session_failure,
)
from atrium.wiki.web.visibility import DELETED_TEXT, can_see, shown_comment, shown_user
from atrium.wiki.wikitext.escaping import escape_wikitext

LIMIT = 50
_TIMESTAMP = re.compile(r"[0-9]{14}")


async def _page(ctx: SpecialContext, title: Title | None) -> tuple[int, Title] | None:
    if title is None:
        return None
    rows = await ctx.db.read(pages_by_titles, [(title.ns, title.dbkey)])
    return (int(rows[0]["page_id"]), title) if rows else None


async def _page_by_id(ctx: SpecialContext, page_id: int) -> tuple[int, Title] | None:
    rows = await ctx.db.read(pages_by_ids, [page_id]) if page_id > 0 else []
    if not rows:
        return None
    return page_id, Title(int(rows[0]["page_namespace"]), str(rows[0]["page_title"]))


async def _entries(ctx: SpecialContext, source: Title, rows: list[Row]) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for row in rows:
        deleted = int(row["rev_deleted"] or 0)
        entries.append(
            {
                "title": source,
                "rev_id": int(row["rev_id"]),
                "parent": int(row["rev_parent_id"] or 0),
                "timestamp": str(row["rev_timestamp"]),
                "time": local_time(str(row["rev_timestamp"])),
                "text_hidden": bool(deleted & DELETED_TEXT),
                "text_visible": can_see(ctx.reader, deleted, DELETED_TEXT),
                "user": shown_user(ctx.reader, deleted, str(row["actor_name"])),
                "size": int(row["rev_len"] or 0),
                "minor": bool(row["rev_minor_edit"]),
                "comment": shown_comment(ctx.reader, deleted, str(row["comment_text"] or "")),
            }
        )
    return await with_comment_html(ctx.db, ctx.site, entries)


async def _show(
    ctx: SpecialContext, errors: list[Markup], status: int = 200, done: Markup | None = None
) -> Response:
    """The search form; with both pages valid and no errors, the mergeable revisions too."""
    target, dest = ctx.param("target"), ctx.param("dest")
    values: dict[str, object] = {
        "target": target, "dest": dest, "errors": errors, "done": done, "listing": None,
        "mergepoint": ctx.param("mergepoint") if _TIMESTAMP.fullmatch(ctx.param("mergepoint")) else "",
        "header": await msg_html(ctx, "mergehistory-header"),
    }  # fmt: skip
    if ctx.flag("submitted") and not errors and done is None:
        source_title, dest_title = ctx.title_of(target), ctx.title_of(dest)
        source, destination = await _page(ctx, source_title), await _page(ctx, dest_title)
        links = Links(ctx.site)
        if source_title is None:
            errors.append(await msg_html(ctx, "mergehistory-invalid-source"))
        elif source is None:
            name = escape_wikitext(links.name(source_title))
            errors.append(await msg_html(ctx, "mergehistory-no-source", name))
        if dest_title is None:
            errors.append(await msg_html(ctx, "mergehistory-invalid-destination"))
        elif destination is None:
            name = escape_wikitext(links.name(dest_title))
            errors.append(await msg_html(ctx, "mergehistory-no-destination", name))
        if source_title is not None and source_title == dest_title:
            errors.append(await msg_html(ctx, "mergehistory-same-destination"))
        if not errors and source is not None and destination is not None:
            before = ctx.param("offset")
            rows = await ctx.db.read(
                mergeable_revisions, source[0], destination[0], LIMIT + 1,
                before if _TIMESTAMP.fullmatch(before) else None,
            )  # fmt: skip
            entries = await _entries(ctx, source[1], rows[:LIMIT])
            values["listing"] = {
                "source_id": source[0],
                "dest_id": destination[0],
                "intro": await msg_links(ctx, "mergehistory-merge", source[1], destination[1]),
                "entries": entries,
                "next": entries[-1]["timestamp"] if len(rows) > LIMIT else "",
                "reason": ctx.param("wpComment"),
                "log": await log_extract(ctx, "merge", source[1]),
            }  # fmt: skip
    return await render(ctx, "mergehistory.html", "Merge page histories", status, **values)


async def _merge(ctx: SpecialContext) -> Response:
    source = await _page_by_id(ctx, ctx.int_param("targetID", 0, 0, 2**31 - 1))
    dest = await _page_by_id(ctx, ctx.int_param("destID", 0, 0, 2**31 - 1))
    # SpecialMergeHistory shows the form again with the error, at 200, for every refusal.
    if source is not None and dest is not None and source[0] == dest[0]:
        return await _show(ctx, [await msg_html(ctx, "mergehistory-same-destination")])
    if source is None or dest is None:
        return await _show(ctx, [await msg_html(ctx, "mergehistory-fail")])
    block = await block_of(ctx, dest[1])
    if block is not None:
        return await block_notice(ctx, block)
    point = ctx.param("mergepoint")
    if not _TIMESTAMP.fullmatch(point):
        # No point chosen: everything older than the destination, as MergeHistory does.
        newest = await ctx.db.read(mergeable_revisions, source[0], dest[0], 1)
        if not newest:
            return await _show(ctx, [await msg_html(ctx, "mergehistory-fail")])
        point = str(newest[0]["rev_timestamp"])
    reason = ctx.param("wpComment")[:500]
    try:
        merged = await ctx.db.write(
            merge_history, ctx.site, ctx.performer(), source[1], dest[1], point, reason
        )
    except ChangeError as exc:
        errors = [await msg_html(ctx, "mergehistory-fail")]
        errors += [Markup("<p>{}</p>").format(each.text) for each in (exc, *exc.more)]
        return await _show(ctx, errors)
    done = await msg_links(ctx, "mergehistory-done", source[1], dest[1], "", merged.revisions)
    return await _show(ctx, [], 200, done)


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.allowed("mergehistory"):
        return await permission_error(
            ctx, "merge the history of this page", badaccess(ctx.site, "mergehistory")
        )
    if ctx.method == "POST":
        if not ctx.token_ok():
            return await _show(ctx, [Markup("<p>{}</p>").format(session_failure())])
        return await _merge(ctx)
    return await _show(ctx, [])


PAGE = SpecialPage("MergeHistory", "Merge page histories", "pagetools", handle, "mergehistory")
