"""`Special:Undelete` (SpecialUndelete): for readers with `deletedhistory`, a search of the
deleted titles by prefix, and one title's deleted revisions; readers who may also `undelete`
pick revisions (`ts<timestamp>` boxes, none for all) and restore them with a reason, the same
change as the API's `action=undelete`. A post needs the session's token and no block."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.pageops import undelete_page
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.reads.deleted_pages import archived_files, archived_revisions, archived_titles
from atrium.wiki.titles import NS_FILE, Title
from atrium.wiki.web.comments import with_comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.special.blocknotice import block_notice, block_of
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    permission_error,
    render,
    session_failure,
    wikitext_html,
)
from atrium.wiki.web.visibility import shown_comment, shown_user
from atrium.wiki.wikitext.escaping import escape_wikitext

LIMIT = 500  # SpecialUndelete lists at most this many titles or revisions


@dataclass(frozen=True)
class DeletedRevision:
    timestamp: str
    time: str
    user: str | None  # None: "(username removed)"
    comment: str | None  # None: "(edit summary removed)"
    size: int
    minor: bool
    title: Title


async def _search(ctx: SpecialContext) -> Response:
    prefix_text = ctx.param("prefix").strip()
    prefix = ctx.title_of(prefix_text) if prefix_text else None
    error = "The requested page title is empty or invalid." if prefix_text and not prefix else ""
    rows = [] if error else await ctx.db.read(archived_titles, prefix, LIMIT)
    found = [(Title(int(r["ar_namespace"]), str(r["ar_title"])), int(r["revisions"])) for r in rows]
    return await render(
        ctx, "undelete_search.html", "Undelete deleted pages", prefix=prefix_text,
        found=found, searched="prefix" in ctx.request.query_params, error=error,
    )  # fmt: skip


async def _revisions(ctx: SpecialContext, title: Title) -> list[DeletedRevision]:
    rows = await ctx.db.read(archived_revisions, title, LIMIT)
    lines = [
        DeletedRevision(
            timestamp=str(r["ar_timestamp"]),
            time=local_time(str(r["ar_timestamp"])),
            user=shown_user(ctx.reader, int(r["ar_deleted"]), str(r["actor_name"])),
            comment=shown_comment(ctx.reader, int(r["ar_deleted"]), str(r["comment_text"])),
            size=int(r["ar_len"] or 0),
            minor=bool(r["ar_minor_edit"]),
            title=title,
        )
        for r in rows
    ]
    return await with_comment_html(ctx.db, ctx.site, lines)


@dataclass(frozen=True)
class DeletedFile:
    file_id: int
    time: str
    size: int
    width: int
    height: int
    user: str | None
    comment: str | None
    title: Title


async def _files(ctx: SpecialContext, title: Title) -> list[DeletedFile]:
    if title.ns != NS_FILE:
        return []
    rows = await ctx.db.read(archived_files, title.dbkey, LIMIT)
    files = [
        DeletedFile(
            file_id=int(r["fa_id"]),
            time=local_time(str(r["fa_timestamp"])),
            size=int(r["fa_size"] or 0),
            width=int(r["fa_width"] or 0),
            height=int(r["fa_height"] or 0),
            user=shown_user(ctx.reader, int(r["fa_deleted"]), str(r["actor_name"])),
            comment=shown_comment(ctx.reader, int(r["fa_deleted"]), str(r["comment_text"])),
            title=title,
        )
        for r in rows
    ]
    return await with_comment_html(ctx.db, ctx.site, files)


async def _history(ctx: SpecialContext, title: Title, error: str = "") -> Response:
    revisions = await _revisions(ctx, title)
    files = await _files(ctx, title)
    name = Links(ctx.site).name(title)
    return await render(
        ctx, "undelete.html", f"Undelete {name}", title=title, name=name,
        revisions=revisions, files=files, may_restore=ctx.reader.allowed("undelete"), error=error,
        comment=ctx.param("wpComment"),
    )  # fmt: skip


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.allowed("deletedhistory"):
        return await permission_error(
            ctx, "view a page's deleted history", badaccess(ctx.site, "deletedhistory")
        )
    text = ctx.param("target") or ctx.subpage
    if not text.strip():
        return await _search(ctx)
    title = ctx.title_of(text)
    if title is None:
        return await render(
            ctx, "undelete_search.html", "Undelete deleted pages", prefix=text, found=[],
            searched=False, error="The requested page title is empty or invalid.",
        )  # fmt: skip
    if ctx.method != "POST":
        return await _history(ctx, title)
    if not ctx.reader.allowed("undelete"):
        return await permission_error(ctx, "undelete pages", badaccess(ctx.site, "undelete"))
    if not ctx.token_ok():
        return await _history(ctx, title, session_failure())
    block = await block_of(ctx, title)
    if block is not None:
        return await block_notice(ctx, block)
    chosen = [k[2:] for k, v in ctx.request_form_items() if k.startswith("ts") and v]
    chosen = [ts for ts in chosen if len(ts) == 14 and ts.isdigit()]
    file_ids = [
        int(k[6:]) for k, v in ctx.request_form_items()
        if k.startswith("fileid") and v and k[6:].isdigit() and len(k) < 18
    ]  # fmt: skip
    reason = ctx.param("wpComment")[:500]
    try:
        restored = await ctx.db.write(
            undelete_page, ctx.site, ctx.performer(), title, reason, chosen, file_ids
        )
    except ChangeError as exc:
        # SpecialUndelete shows the history again with the error, at 200.
        return await _history(ctx, title, exc.text)
    name = escape_wikitext(Links(ctx.site).name(title))
    count, files = restored.revisions, restored.files
    restored_files = f" and {files} {'file' if files == 1 else 'files'}" if files else ""
    text = await wikitext_html(
        ctx,
        f"{count} {'revision' if count == 1 else 'revisions'}{restored_files} restored.\n\n"
        f"'''[[:{name}]] has been undeleted'''\n\nConsult the "
        "[[Special:Log/delete|deletion log]] for a record of recent deletions and restorations.",
    )
    return await render(
        ctx, "message.html", "Undelete pages", box="mw-message-box", text=Markup(text)
    )


PAGE = SpecialPage("Undelete", "View deleted pages", "pagetools", handle, "deletedhistory")
