"""`Special:Log` (`Special:Log/<type>`): the logs, newest first, filtered by type, performer
(`user`), target page (`page`) and entry (`logid`). What a reader may not see stays out or reads as removed: a
deleted action or performer, a hidden user, the suppression log."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.reads.log_entries import log_entries
from atrium.wiki.titles import Title
from atrium.wiki.web.comments import with_comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.log_lines import LOG_NAMES, LogLine, log_html
from atrium.wiki.web.special import log_revdel
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, render
from atrium.wiki.web.visibility import can_see, shown_comment, shown_user

# Every public log, by name; the suppression log only for those who may read it.
TYPES = {"": "All public logs"} | {
    kind: name
    for kind, name in sorted(LOG_NAMES.items(), key=lambda kv: kv[1])
    if kind != "suppress"
}
DELETED_ACTION = 1


async def handle(ctx: SpecialContext) -> Response:
    log_type = (ctx.param("type") or ctx.subpage).strip().lower()
    if log_type not in TYPES and log_type != "suppress":
        log_type = ""
    see_suppressed = ctx.reader.allowed("suppressionlog")
    if log_type == "suppress" and not see_suppressed:
        log_type = ""
    performer = ctx.param("user").strip().replace("_", " ") or None
    page_text = ctx.param("page").strip()
    page = ctx.title_of(page_text) if page_text else None
    limit = ctx.int_param("limit", 50, 1, 500)
    # `logid`: one entry (where Special:Redirect/logid/N leads); ids are 32-bit.
    log_id = ctx.int_param("logid", 0, 0, 2**31 - 1) or None
    rows = []
    if not page_text or page is not None:
        rows = await ctx.db.read(
            lambda conn: log_entries(
                conn,
                log_type=log_type or None,
                performer=performer,
                page=(page.ns, page.dbkey) if page else None,
                see_deleted=ctx.reader.allowed("deletedhistory"),
                see_suppressed=ctx.reader.allowed("viewsuppressed"),
                suppression_log=see_suppressed,
                limit=limit,
                log_id=log_id,
            )
        )
    reader = ctx.reader
    entries = []
    for row in rows:
        deleted = int(row["log_deleted"] or 0)
        ns, key = int(row["log_namespace"]), str(row["log_title"])
        kind, action = str(row["log_type"]), str(row["log_action"])
        entries.append(
            {
                "id": int(row["log_id"]),
                "type": kind,
                "action": action,
                "params": row["log_params"],
                "time": local_time(str(row["log_timestamp"])),
                "user": shown_user(reader, deleted, str(row["actor_name"])),
                "title": Title(ns, key) if can_see(reader, deleted, DELETED_ACTION) else None,
                "name": ctx.site.parser.prefixed_text(ns, key),
                "comment": shown_comment(reader, deleted, str(row["comment_text"] or "")),
                "deleted": deleted,
            }
        )
    entries = await with_comment_html(ctx.db, ctx.site, entries)
    sentences = await log_html(
        ctx.db,
        ctx.site,
        [LogLine(e["type"], e["action"], e["params"], e["user"], e["title"]) for e in entries],
    )
    links = Links(ctx.site)
    for entry, sentence in zip(entries, sentences, strict=True):
        entry["sentence"] = sentence
        entry["control"] = log_revdel.line_control(links, reader, entry)
        entry["revdel_links"] = log_revdel.action_links(links, reader, entry)
    return await render(
        ctx,
        "log.html",
        TYPES.get(log_type, LOG_NAMES["suppress"]),
        types=TYPES,
        log_type=log_type,
        performer=performer or "",
        page=page_text,
        entries=entries,
        selectable=log_revdel.may_select(reader),
        revision_delete=log_revdel.REVISION_DELETE,
    )


PAGE = SpecialPage("Log", "Logs", "changes", handle)
