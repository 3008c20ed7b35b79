"""`Special:UploadStash`: the files the reader stashed (`action=upload&stash=1`, chunked uploads)
and has not published, each linked to itself (`Special:UploadStash/file/<key>`) and to a
thumbnail (`…/thumb/<key>/220px-<key>`), and the button that clears the stash — as MediaWiki's
SpecialUploadStash, for those with the `upload` right.

Only the reader's own entries are listed or served: a key of someone else's answers as a
missing one. A file is served as the wiki serves uploads (its verified type, sandboxed,
`nosniff`), privately, and only up to 1 MiB, MediaWiki's limit for this page.
"""

from __future__ import annotations

import re
from pathlib import Path

from starlette.responses import FileResponse, PlainTextResponse, Response

from atrium.core import workers
from atrium.core.user_content import RASTER_TYPES, SAFE_HEADERS, disposition
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.changes.upload_chunks import clear
from atrium.wiki.files.thumbs import scale
from atrium.wiki.reads.upload_stash import FINISHED, stashed, stashed_file
from atrium.wiki.web.log_lines import message
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    not_logged_in,
    permission_error,
    render,
    session_failure,
)

MAX_SERVE_BYTES = 1048576  # SpecialUploadStash::MAX_SERVE_BYTES
THUMB_WIDTH = 220  # the width the list links to
_THUMB_NAME = re.compile(r"(\d+)px-(.+)")
_PRIVATE = {**SAFE_HEADERS, "Cache-Control": "private"}


def _refused(text: str) -> Response:
    """HttpError's answer: the reason, nothing of the stash."""
    return PlainTextResponse(text, status_code=404, headers=_PRIVATE)


async def _serve(ctx: SpecialContext, path_text: str) -> Response:
    """`file/<key>` or `thumb/<key>/<width>px-<key>` (SpecialUploadStash::showUpload)."""
    kind, _, rest = path_text.partition("/")
    key, _, thumb_name = rest.partition("/")
    if kind not in ("file", "thumb"):
        return _refused(message("uploadstash-bad-path-unknown-type", kind))
    row = await ctx.db.read(stashed_file, ctx.reader.id, key) if key else None
    path = Path(str(row["us_path"])) if row is not None else None
    if row is None or path is None or not path.is_file():
        return _refused(message("uploadstash-file-not-found", key))
    mime = str(row["us_mime"] or "application/octet-stream")
    if kind == "file":
        if int(row["us_size"]) > MAX_SERVE_BYTES:
            return _refused(message("uploadstash-file-too-large", MAX_SERVE_BYTES))
        return FileResponse(
            path, media_type=mime, filename=key, content_disposition_type=disposition(mime),
            headers=_PRIVATE,
        )  # fmt: skip
    asked = _THUMB_NAME.fullmatch(thumb_name)
    if asked is None or asked.group(2) != key:
        return _refused(message("uploadstash-bad-path-unrecognized-thumb-name"))
    if mime not in RASTER_TYPES or int(row["us_size"]) > MAX_SERVE_BYTES * 16:
        return _refused(message("uploadstash-file-not-found-no-thumb"))
    width = int(asked.group(1)[:6])
    data = await workers.run(path.read_bytes)
    scaled = await workers.run(scale, data, width)
    body, media = scaled if scaled is not None else (data, mime)
    if len(body) > MAX_SERVE_BYTES:
        return _refused(message("uploadstash-file-too-large", MAX_SERVE_BYTES))
    return Response(body, media_type=media, headers=_PRIVATE)


async def _listing(ctx: SpecialContext, error: str = "") -> Response:
    links = Links(ctx.site)
    rows = await ctx.db.read(stashed, ctx.reader.id)
    files = [
        {
            "key": str(r["us_key"]),
            "href": links.special("UploadStash/file/" + str(r["us_key"])),
            # A thumbnail only of a finished picture (UploadStashFile::generateThumbName).
            "thumb": links.special(f"UploadStash/thumb/{r['us_key']}/{THUMB_WIDTH}px-{r['us_key']}")
            if r["us_status"] == FINISHED and r["us_mime"] in RASTER_TYPES
            else "",
        }
        for r in rows
    ]
    return await render(
        ctx,
        "uploadstash.html",
        message("uploadstash"),
        files=files,
        summary=message("uploadstash-summary"),
        error=error,
        form_action=links.form_action("UploadStash"),
        refresh=links.special("UploadStash"),
    )


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.registered:
        return await not_logged_in(ctx, "upload files")
    if not ctx.reader.allowed("upload"):
        return await permission_error(ctx, "upload files", badaccess(ctx.site, "upload"))
    if ctx.subpage:
        return await _serve(ctx, ctx.subpage)
    if ctx.method == "POST" and ctx.flag("clear"):
        if not ctx.token_ok():
            return await _listing(ctx, error=session_failure())
        await ctx.db.write(clear, ctx.reader.id)
        return await _listing(ctx)
    return await _listing(ctx)


PAGE = SpecialPage("UploadStash", "Upload stash", "media", handle, "upload", listed=False)
