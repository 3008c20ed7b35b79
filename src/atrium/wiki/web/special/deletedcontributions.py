"""`Special:DeletedContributions/<user>`: a user's edits to pages that were deleted, for readers
with `deletedhistory`. A revision whose author was hidden by revision deletion is left out unless
the reader may see it (suppressed ones need `suppressrevision`/`viewsuppressed`), a hidden
summary reads "(edit summary removed)", and a user hidden by a `hidename` block is unknown to
readers without `hideuser`. The text is reachable only with `deletedtext`."""

from __future__ import annotations

import re
from typing import Any

from starlette.responses import Response

from atrium.wiki.accounts.usernames import is_ip_or_range
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.reads.deleted_contributions import deleted_contributions
from atrium.wiki.reads.users import account_by_name, is_hidden
from atrium.wiki.titles import Title
from atrium.wiki.web.comments import with_comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.recentchanges import namespace_filter
from atrium.wiki.web.special.render import Links, permission_error, render
from atrium.wiki.web.visibility import DELETED_TEXT, DELETED_USER, can_see, shown_comment

_TIMESTAMP = re.compile(r"[0-9]{14}")


async def _target(ctx: SpecialContext, text: str) -> str | None:
    """The user name the form names, or None when it names no user this reader may see."""
    if is_ip_or_range(text):
        return text
    title = ctx.title_of(text)
    if title is None or "/" in title.dbkey:
        return None
    account = await ctx.db.read(account_by_name, title.dbkey.replace("_", " "))
    if account is None:
        return None
    if not ctx.reader.allowed("hideuser") and await ctx.db.read(is_hidden, account.id):
        return None
    return account.name


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.allowed("deletedhistory"):
        return await permission_error(
            ctx, "view a page's deleted history", badaccess(ctx.site, "deletedhistory")
        )
    text = (ctx.param("target") or ctx.subpage).strip()
    namespace = namespace_filter(ctx)
    limit = ctx.int_param("limit", 50, 1, 500)
    offset = ctx.param("offset")
    before = offset if _TIMESTAMP.fullmatch(offset) else None
    target = await _target(ctx, text) if text else None
    entries: list[dict[str, Any]] = []
    next_offset = ""
    if target is not None:
        rows = await ctx.db.read(deleted_contributions, target, namespace, limit + 1, before)
        if len(rows) > limit:
            next_offset = str(rows[limit - 1]["ar_timestamp"])
        links = Links(ctx.site)
        may_read_text = ctx.reader.allowed("deletedtext")
        for row in rows[:limit]:
            deleted = int(row["ar_deleted"] or 0)
            if not can_see(ctx.reader, deleted, DELETED_USER):
                continue
            title = Title(int(row["ar_namespace"]), str(row["ar_title"]))
            entries.append(
                {
                    "title": title,
                    "name": links.name(title),
                    "key": ctx.site.parser.prefixed_dbkey(title.ns, title.dbkey),
                    "timestamp": str(row["ar_timestamp"]),
                    "time": local_time(str(row["ar_timestamp"])),
                    "minor": bool(row["ar_minor_edit"]),
                    "text_hidden": bool(deleted & DELETED_TEXT),
                    "text_link": may_read_text and can_see(ctx.reader, deleted, DELETED_TEXT),
                    "comment": shown_comment(ctx.reader, deleted, str(row["comment_text"] or "")),
                }
            )
        entries = await with_comment_html(ctx.db, ctx.site, entries)
    heading = f"Deleted user contributions for {target}" if target else "Deleted user contributions"
    return await render(
        ctx,
        "deletedcontributions.html",
        heading,
        text=text,
        target=target,
        unknown=bool(text) and target is None,
        namespace=namespace,
        limit=limit,
        entries=entries,
        next_offset=next_offset,
    )


PAGE = SpecialPage(
    "DeletedContributions", "Deleted user contributions", "users", handle, "deletedhistory"
)
