"""Serving stored bytes: uploads (to those who may read them), avatars, realm images, emoji.

These answer files, not Zulip's JSON envelope, so they are plain Starlette endpoints outside
/api/v1. An upload is served only to its owner or to a user who may read a message linking it,
authenticated by HTTP Basic (as `/user_uploads` accepts in Zulip) or by a temporary signed link.
Range requests, conditional requests and HEAD come from Starlette's FileResponse.
"""

from __future__ import annotations

import functools
import io
from typing import Any

from PIL import Image
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from atrium.chat.auth import authenticate, browser_session, session_user
from atrium.chat.errors import ChatError
from atrium.chat.models import User
from atrium.chat.queries.attachments import attachment_by_path, can_read_attachment
from atrium.chat.queries.images import (
    REALM_IMAGE_KINDS,
    default_image_color,
    realm_emoji_row,
    realm_image_row,
    user_avatar_row,
)
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn
from atrium.core.signing import unsign

# Types a browser may show in place: anything else is downloaded, and SVG/HTML never run.
INLINE_TYPES = frozenset(
    {
        "application/pdf",
        "audio/aac",
        "audio/flac",
        "audio/mp4",
        "audio/mpeg",
        "audio/ogg",
        "audio/wav",
        "audio/webm",
        "image/apng",
        "image/avif",
        "image/gif",
        "image/jpeg",
        "image/png",
        "image/webp",
        "text/plain",
        "video/mp4",
        "video/ogg",
        "video/webm",
    }
)

# The bytes are the uploader's, not ours: nothing in them may run or load anything.
_SAFE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; img-src 'self'; media-src 'self'; sandbox",
}


def file_response(runtime: ChatRuntime, row: Any) -> Response:
    path = runtime.blobs.path(row["sha256"])
    if not path.is_file():
        return HTMLResponse("<p>File not found.</p>", status_code=404)
    content_type = row["content_type"]
    disposition = "inline" if content_type in INLINE_TYPES else "attachment"
    media_type = content_type + ("; charset=utf-8" if content_type == "text/plain" else "")
    return FileResponse(
        path,
        media_type=media_type,
        filename=row["file_name"],
        content_disposition_type=disposition,
        headers={**_SAFE_HEADERS, "Cache-Control": "private, max-age=3600"},
    )


async def request_user(runtime: ChatRuntime, request: Request) -> User | Response:
    """Who asks for a file: HTTP Basic when the request carries it, else the browser's chat
    session; the answer to give instead when neither names an active user."""
    header = request.headers.get("authorization")
    if header is None:
        # A browser opening a link: its chat session, else the sign-in page as Zulip sends
        # it there. Never a Basic challenge: the browser's password dialog would invite
        # typing an API key it then sends on every request.
        session = await browser_session(runtime, request)
        session_member = await session_user(runtime, session) if session else None
        if session_member is None:
            return RedirectResponse("/login", 302, headers={"Cache-Control": "no-store"})
        return session_member
    try:
        return await authenticate(runtime, header)
    except ChatError as error:
        return HTMLResponse(
            f"<p>{'Not logged in' if error.status == 401 else 'Forbidden'}.</p>",
            status_code=401,
        )


def file_routes(runtime: ChatRuntime) -> list[BaseRoute]:
    async def serve_upload(request: Request) -> Response:
        user = await request_user(runtime, request)
        if isinstance(user, Response):
            return user
        path_id = f"{request.path_params['realm_id']}/{request.path_params['path']}"

        def read(conn: Conn) -> tuple[Any, bool]:
            row = attachment_by_path(conn, path_id)
            return row, row is not None and can_read_attachment(conn, user, row)

        row, allowed = await runtime.db.read(read)
        if row is None:
            return HTMLResponse("<p>File not found.</p>", status_code=404)
        if not allowed:
            return HTMLResponse("<p>You are not authorized to view this file.</p>", 403)
        return file_response(runtime, row)

    async def serve_temporary(request: Request) -> Response:
        path_id = unsign(runtime.secret, request.path_params["token"])
        if path_id is None:
            return HTMLResponse("<p>Invalid token.</p>", status_code=403)
        if path_id.rsplit("/", 1)[-1] != request.path_params["filename"]:
            return HTMLResponse("<p>Invalid filename.</p>", status_code=403)
        row = await runtime.db.read(attachment_by_path, path_id)
        if row is None:
            return HTMLResponse("<p>File not found.</p>", status_code=404)
        return file_response(runtime, row)

    def _image(sha256: str, content_type: str) -> Response:
        path = runtime.blobs.path(sha256)
        if not path.is_file():
            return HTMLResponse("<p>File not found</p>", status_code=404)
        return FileResponse(
            path,
            media_type=content_type,
            headers={**_SAFE_HEADERS, "Cache-Control": "public, max-age=86400"},
        )

    async def serve_avatar(request: Request) -> Response:
        realm_id, user_id = request.path_params["realm_id"], request.path_params["user_id"]
        row = await runtime.db.read(user_avatar_row, realm_id, user_id)
        if row is None:
            return HTMLResponse("<p>File not found</p>", status_code=404)
        return _image(row["sha256"], row["content_type"])

    async def serve_realm_image(request: Request) -> Response:
        realm_id, kind = request.path_params["realm_id"], request.path_params["kind"]
        if kind not in REALM_IMAGE_KINDS:
            return HTMLResponse("<p>File not found</p>", status_code=404)
        row = await runtime.db.read(realm_image_row, realm_id, kind)
        if row is None or row["sha256"] is None:
            return Response(
                default_image(f"{realm_id}:{kind}"),
                media_type="image/png",
                headers={"Cache-Control": "public, max-age=3600"},
            )
        return _image(row["sha256"], row["content_type"])

    async def serve_emoji(request: Request) -> Response:
        realm_id, emoji_id = request.path_params["realm_id"], request.path_params["emoji_id"]
        row = await runtime.db.read(realm_emoji_row, realm_id, emoji_id)
        if row is None or row["file_ext"] != request.path_params["ext"]:
            return HTMLResponse("<p>File not found</p>", status_code=404)
        return _image(row["sha256"], row["content_type"])

    read_only = ["GET", "HEAD"]
    return [
        Route("/user_uploads/temporary/{token}/{filename}", serve_temporary, methods=read_only),
        Route("/user_uploads/{realm_id:int}/{path:path}", serve_upload, methods=read_only),
        Route("/user_avatars/{realm_id:int}/{user_id:int}.png", serve_avatar, methods=read_only),
        Route(
            "/user_avatars/{realm_id:int}/realm/{kind}.png", serve_realm_image, methods=read_only
        ),
        Route(
            "/user_avatars/{realm_id:int}/emoji/images/{emoji_id:int}.{ext}",
            serve_emoji,
            methods=read_only,
        ),
    ]


@functools.cache
def default_image(key: str) -> bytes:
    """The image shown before an administrator uploads one: a plain square in a stable colour."""
    buffer = io.BytesIO()
    Image.new("RGB", (100, 100), default_image_color(key)).save(buffer, format="PNG")
    return buffer.getvalue()
