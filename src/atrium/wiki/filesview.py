"""`/images/…`: the uploaded files at the URLs `prop=imageinfo` reports (`/images/x/xy/Name`), and
their scaled versions (`/images/thumb/x/xy/Name/120px-Name`, PNG scaled here, other formats sent
as stored for the browser to scale)."""

from __future__ import annotations

import mimetypes
import re
from pathlib import Path
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from atrium.wiki import thumbs
from atrium.wiki.site import Site

_THUMB = re.compile(r"thumb/([0-9a-f]/[0-9a-f]{2}/[^/]+)/(\d+)px-[^/]+")
_ORIGINAL = re.compile(r"[0-9a-f]/[0-9a-f]{2}/[^/]+")


def _not_found() -> Response:
    return PlainTextResponse("File not found", status_code=404)


async def image(request: Request, site: Site) -> Response:
    if site.files_dir is None:
        return _not_found()
    root = (site.files_dir / "images").resolve()
    path = unquote(str(request.path_params.get("path", "")))
    thumb = _THUMB.fullmatch(path)
    relative = thumb.group(1) if thumb else path
    if not (thumb or _ORIGINAL.fullmatch(path)):
        return _not_found()
    target = (root / relative).resolve()
    if root not in target.parents or not target.is_file():
        return _not_found()
    data = Path(target).read_bytes()
    mime = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if thumb:
        scaled = thumbs.scale_png(data, int(thumb.group(2))) if mime == "image/png" else None
        if scaled is not None:
            data = scaled
    headers = {"X-Content-Type-Options": "nosniff", "Cache-Control": "max-age=86400"}
    return Response(data, media_type=mime, headers=headers)
