"""The lines of one log about one page that a Special page shows under its form
(LogEventsList::showLogExtract): the merge log under Special:MergeHistory, the tag log under
Special:EditTags, the revision-deletion entries about the selected items under
Special:RevisionDelete. What the reader may not see stays out or reads as removed, as on
Special:Log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from atrium.wiki.reads.log_entries import log_entries
from atrium.wiki.titles import Title
from atrium.wiki.web.comments import with_comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.log_lines import LogLine, log_html
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.log_revdel import action_links, line_control
from atrium.wiki.web.special.render import Links
from atrium.wiki.web.visibility import can_see, shown_comment, shown_user

DELETED_ACTION = 1


async def log_extract(
    ctx: SpecialContext,
    log_type: str,
    title: Title | None,
    limit: int = 25,
    *,
    action: str | None = None,
    related: tuple[str, Sequence[str]] | None = None,
) -> list[dict[str, Any]]:
    """The newest `limit` entries of `log_type` (about `title`, when given; of that `action`;
    about any of `related`'s values of its `log_search` field)."""
    reader = ctx.reader
    rows = await ctx.db.read(
        lambda conn: log_entries(
            conn,
            log_type=log_type,
            performer=None,
            page=(title.ns, title.dbkey) if title is not None else None,
            see_deleted=reader.allowed("deletedhistory"),
            see_suppressed=reader.allowed("viewsuppressed"),
            suppression_log=reader.allowed("suppressionlog"),
            limit=limit,
            action=action,
            related=related,
        )
    )
    entries: list[dict[str, Any]] = []
    for row in rows:
        deleted = int(row["log_deleted"] or 0)
        ns, key = int(row["log_namespace"]), str(row["log_title"])
        entries.append(
            {
                "id": int(row["log_id"]),
                "type": str(row["log_type"]),
                "action": str(row["log_action"]),
                "params": row["log_params"],
                "time": local_time(str(row["log_timestamp"])),
                "user": shown_user(reader, deleted, str(row["actor_name"])),
                "title": Title(ns, key) if can_see(reader, deleted, DELETED_ACTION) else None,
                "comment": shown_comment(reader, deleted, str(row["comment_text"] or "")),
                "deleted": deleted,
            }
        )
    entries = await with_comment_html(ctx.db, ctx.site, entries)
    lines = [LogLine(e["type"], e["action"], e["params"], e["user"], e["title"]) for e in entries]
    links = Links(ctx.site)
    for entry, sentence in zip(entries, await log_html(ctx.db, ctx.site, lines), strict=True):
        entry["sentence"] = sentence
        # The entry's own "change visibility" link, and a revision deletion's links to what
        # it changed, as on Special:Log.
        entry["control"] = line_control(links, reader, entry, checkboxes=False)
        entry["revdel_links"] = action_links(links, reader, entry)
    return entries
