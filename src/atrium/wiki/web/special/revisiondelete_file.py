"""`Special:RevisionDelete?target=File:…&file=<archive name>`: an old version of a file, its file
hidden or not, shown to whoever may see it (SpecialRevisionDelete::tryShowFile).

A hidden old version is served at no `/images/` URL; here it needs `deletedtext` (and, when
suppressed, `viewsuppressed`), and a token bound to the session and to that version, which the
list's link carries. Without the token the reader is asked first, as MediaWiki asks. The file is
served as uploads are (its verified type, sandboxed, anything but a raster image an attachment),
never cached: a cached copy would reach readers who may not see it."""

from __future__ import annotations

import hashlib
import hmac

from markupsafe import Markup
from starlette.responses import FileResponse, Response

from atrium.core.session_cookies import tokens_match
from atrium.core.user_content import SAFE_HEADERS, disposition
from atrium.wiki.changes import revdelete as revdel
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.files.paths import archive_path
from atrium.wiki.reads.stored_files import stored_file
from atrium.wiki.titles import NS_FILE, NS_SPECIAL, Title
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.log_lines import message
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.render import (
    Links,
    message_page,
    permission_error,
    render,
    wikitext_html,
)
from atrium.wiki.web.visibility import DELETED_RESTRICTED, DELETED_TEXT, can_see

# What MediaWiki sends so that no cache keeps a hidden file.
NO_CACHE = {
    "Expires": "Thu, 01 Jan 1970 00:00:00 GMT",
    "Cache-Control": "no-cache, no-store, max-age=0, must-revalidate",
    "Pragma": "no-cache",
}


def file_token(ctx: SpecialContext, archive_name: str) -> str:
    """The session's token salted with the version (User::getEditToken's salt): a link to one
    hidden file gives away no token for anything else."""
    key = ctx.token.encode()
    return hmac.new(key, archive_name.encode(), hashlib.sha256).hexdigest()


def file_view_url(
    ctx: SpecialContext, target: Title, archive_name: str, *, posted: bool = False
) -> str:
    """The file view's link, or (`posted`) where its question's form posts: index.php."""
    links = Links(ctx.site)
    at = links.index if posted else links.page
    return at(
        Title(NS_SPECIAL, "RevisionDelete"), target=ctx.site.parser.prefixed_text(target.ns, target.dbkey),
        file=archive_name, token=file_token(ctx, archive_name),
    )  # fmt: skip


def _date_and_time(ts14: str) -> tuple[str, str]:
    shown = local_time(ts14)
    if ", " in shown:
        time, date = shown.split(", ", 1)
        return date, time
    date, _, time = shown.partition("T")
    return date, time or shown


async def _no_file(ctx: SpecialContext) -> Response:
    return await message_page(
        ctx, "Delete/undelete revisions", message("revdelete-no-file"), 200, box=""
    )


async def show_file(ctx: SpecialContext, target: Title, archive_name: str) -> Response:
    reader = ctx.reader
    restriction = revdel.RESTRICTION["oldimage"]
    if not (reader.allowed(restriction) or reader.allowed("deletedhistory")):
        return await permission_error(ctx, "delete revisions", badaccess(ctx.site, restriction))
    if target.ns != NS_FILE or ctx.site.files_dir is None:
        return await _no_file(ctx)
    root = (ctx.site.files_dir / "images").resolve()
    path = (root / archive_path(target.dbkey, archive_name)).resolve()
    stored = await ctx.db.read(stored_file, target.dbkey, archive_name)
    if stored is None or root not in path.parents:
        return await _no_file(ctx)
    if not can_see(reader, stored.deleted, DELETED_TEXT):
        needed = "suppressrevision" if stored.deleted & DELETED_RESTRICTED else "deletedtext"
        return await permission_error(ctx, "view this file", badaccess(ctx.site, needed))
    if not tokens_match(file_token(ctx, archive_name), ctx.param("token")):
        date, time = _date_and_time(archive_name.split("!", 1)[0])
        question = await wikitext_html(
            ctx, message("revdelete-show-file-confirm", target.dbkey.replace("_", " "), date, time)
        )
        return await render(
            ctx, "revisiondelete_file.html", "Delete/undelete revisions",
            question=Markup(question),
            action=file_view_url(ctx, target, archive_name, posted=True),
        )  # fmt: skip
    if not path.is_file():
        return await _no_file(ctx)
    return FileResponse(
        path,
        media_type=stored.mime,
        filename=target.dbkey,
        content_disposition_type=disposition(stored.mime),
        headers={**SAFE_HEADERS, **NO_CACHE},
    )
