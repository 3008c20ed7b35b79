"""GET /thumbnail?url=…&size=thumbnail|full: the inline previews the renderer links to.

Zulip 7 answers this for a signed-in user: an upload they may read is shown (here `thumbnail`
is a scaled copy made once in the worker pool and kept; `full` is the upload itself, by a
redirect that checks the same rights again); any other URL is sent to the external-content
(Camo) proxy when one is configured, and refused otherwise. The server itself never fetches a
URL a message names: that would let any sender make it request addresses of their choosing.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from atrium.chat.errors import ChatError, missing_argument
from atrium.chat.http import error_response
from atrium.chat.markdown.previews import camo_url
from atrium.chat.queries.attachments import attachment_by_path, can_read_attachment
from atrium.chat.runtime import ChatRuntime
from atrium.chat.thumbnails import SCALABLE_TYPES, NotScalable, cache_path, make_thumbnail
from atrium.chat.views.files import request_user
from atrium.core import workers
from atrium.core.db import Conn

SIZES = frozenset({"thumbnail", "full"})
MAX_URL_LENGTH = 4096
UPLOADS = "/user_uploads/"
# A scaled copy is ours and holds nothing that runs; as with the upload, nothing may load.
_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Cache-Control": "private, max-age=86400",
}


def upload_path(url: str, host: str) -> str | None:
    """The upload's path id when `url` names one of this server's uploads, else None."""
    parts = urlsplit(url)
    foreign = parts.scheme not in ("http", "https") or parts.netloc != host
    if (parts.scheme or parts.netloc) and foreign:
        return None
    if not parts.path.startswith(UPLOADS) or parts.query or parts.fragment:
        return None
    path_id = parts.path[len(UPLOADS) :]
    if path_id.startswith("temporary/") or ".." in path_id.split("/"):
        return None
    return path_id


def thumbnail_routes(runtime: ChatRuntime) -> list[BaseRoute]:

    async def serve_thumbnail(request: Request) -> Response:
        user = await request_user(runtime, request)
        if isinstance(user, Response):
            return user
        url = request.query_params.get("url")
        size = request.query_params.get("size", "thumbnail")
        if not url:
            return error_response(missing_argument("url"))
        if len(url) > MAX_URL_LENGTH:
            return error_response(ChatError("URL too long"))
        if size not in SIZES:
            return HTMLResponse("<p>Invalid size.</p>", status_code=403)
        path_id = upload_path(url, request.headers.get("host", ""))
        if path_id is None:
            return external(url)

        def read(conn: Conn) -> tuple[Any, bool]:
            row = attachment_by_path(conn, path_id)
            return row, row is not None and can_read_attachment(conn, user, row)

        row, allowed = await runtime.db.read(read)
        if row is None or not allowed:
            # The same answer whether the file is missing or hidden: nobody learns that a path
            # they may not read exists.
            return HTMLResponse("<p>You are not authorized to view this file.</p>", 403)
        original = RedirectResponse(UPLOADS + quote(path_id), 302)
        if size == "full" or row["content_type"] not in SCALABLE_TYPES:
            return original
        source = runtime.blobs.path(row["sha256"])
        if not source.is_file():
            return HTMLResponse("<p>File not found.</p>", status_code=404)
        try:
            target = await workers.run(
                make_thumbnail, source, cache_path(runtime.settings.data_dir, row["sha256"])
            )
        except NotScalable:
            return original
        return FileResponse(target, media_type="image/webp", headers=_HEADERS)

    def external(url: str) -> Response:
        camo_uri, camo_key = runtime.settings.camo_url, runtime.settings.camo_key
        scheme = urlsplit(url).scheme
        if camo_uri and camo_key and scheme in ("http", "https"):
            return RedirectResponse(camo_url(url, camo_uri, camo_key), 302)
        return HTMLResponse("<p>You are not authorized to view this file.</p>", status_code=403)

    return [Route("/thumbnail", serve_thumbnail, methods=["GET", "HEAD"])]
