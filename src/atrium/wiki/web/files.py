"""`/images/…`: the uploaded files at the URLs `prop=imageinfo` reports (`/images/x/xy/Name`, old
versions under `/images/archive/x/xy/<ts>!Name`), and their scaled versions
(`/images/thumb/x/xy/Name/120px-Name`, made once by `thumbs.scale` and kept beside the files)."""

from __future__ import annotations

import mimetypes
import re
from pathlib import Path
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from atrium.wiki.files import thumbs
from atrium.wiki.site import Site

_THUMB = re.compile(r"thumb/((?:archive/)?[0-9a-f]/[0-9a-f]{2}/[^/]+)/(\d+)px-[^/]+")
_ORIGINAL = re.compile(r"(?:archive/)?[0-9a-f]/[0-9a-f]{2}/[^/]+")


def _not_found() -> Response:
    return PlainTextResponse("File not found", status_code=404)


def _thumbnail(root: Path, original: Path, path: str, width: int) -> bytes:
    """The scaled copy, made on first request and kept under images/thumb/; the original
    itself when it cannot be scaled (MediaWiki shows it unscaled too)."""
    cached = (root / path).resolve()
    if root in cached.parents and cached.is_file():
        return cached.read_bytes()
    data = original.read_bytes()
    scaled = thumbs.scale(data, width)
    if scaled is None:
        return data
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(cached.name + ".part")
    partial.write_bytes(scaled[0])
    partial.replace(cached)
    return scaled[0]


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
    mime = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if thumb:
        data = _thumbnail(root, target, path, int(thumb.group(2)))
    else:
        data = Path(target).read_bytes()
    headers = {"X-Content-Type-Options": "nosniff", "Cache-Control": "max-age=86400"}
    return Response(data, media_type=mime, headers=headers)
