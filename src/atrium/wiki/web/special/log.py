"""`Special:Log` (`Special:Log/<type>`): the logs, newest first, filtered by type, performer
(`user`) and target page (`page`). What a reader may not see stays out or reads as removed: a
deleted action or performer, a hidden user, the suppression log."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.reads.log_entries import log_entries
from atrium.wiki.timestamps import formatted
from atrium.wiki.titles import Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render
from atrium.wiki.web.visibility import can_see, shown_comment, shown_user

TYPES = {
    "": "All public logs",
    "block": "Block log",
    "create": "Page creation log",
    "delete": "Deletion log",
    "move": "Move log",
    "newusers": "User creation log",
    "protect": "Protection log",
    "rights": "User rights log",
    "upload": "Upload log",
}
# What the performer did, for the common actions (MediaWiki's logentry-* messages, shortened).
VERBS = {
    ("block", "block"): "blocked",
    ("block", "reblock"): "changed block settings for",
    ("block", "unblock"): "unblocked",
    ("create", "create"): "created page",
    ("delete", "delete"): "deleted page",
    ("delete", "restore"): "restored page",
    ("move", "move"): "moved page",
    ("move", "move_redir"): "moved page",
    ("newusers", "create"): "created the user account",
    ("newusers", "create2"): "created the user account",
    ("newusers", "autocreate"): "was automatically created as",
    ("protect", "protect"): "protected",
    ("protect", "modify"): "changed protection settings for",
    ("protect", "unprotect"): "removed protection from",
    ("rights", "rights"): "changed group membership for",
    ("upload", "upload"): "uploaded",
    ("upload", "overwrite"): "uploaded a new version of",
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
                "time": formatted(str(row["log_timestamp"])),
                "user": shown_user(reader, deleted, str(row["actor_name"])),
                "verb": VERBS.get((kind, action), f"performed {kind}/{action} on"),
                "title": Title(ns, key) if can_see(reader, deleted, DELETED_ACTION) else None,
                "name": ctx.site.parser.prefixed_text(ns, key),
                "comment": shown_comment(reader, deleted, str(row["comment_text"] or "")),
            }
        )
    return await render(
        ctx,
        "log.html",
        TYPES.get(log_type, "Suppression log"),
        types=TYPES,
        log_type=log_type,
        performer=performer or "",
        page=page_text,
        entries=entries,
    )


PAGE = SpecialPage("Log", "Logs", "changes", handle)
