"""`/images/…`: the uploaded files at the URLs `prop=imageinfo` reports (`/images/x/xy/Name`, old
versions under `/images/archive/x/xy/<ts>!Name`), and their scaled versions
(`/images/thumb/x/xy/Name/120px-Name`, see thumb_cache.py for which widths are made).

A file is served with the type recorded when it was verified at upload, never one guessed from
its name; a file with no record is not served. Every answer carries a sandboxing CSP and
`nosniff`, and anything but a raster image is an attachment. Scaling runs in the worker pool."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response

from atrium.core import workers
from atrium.core.db import Database
from atrium.core.user_content import SAFE_HEADERS, disposition
from atrium.wiki.files import thumb_cache
from atrium.wiki.files.paths import hash_path
from atrium.wiki.reads.stored_files import StoredFile, stored_file
from atrium.wiki.site import Site

_THUMB = re.compile(r"thumb/((?:archive/)?[0-9a-f]/[0-9a-f]{2}/[^/]+)/(\d+)px-([^/]+)")
_ORIGINAL = re.compile(r"(archive/)?([0-9a-f]/[0-9a-f]{2}/)([^/]+)")
# thumbnail_toobigimagearea with $wgMaxImageArea as `size-megapixel`
TOO_BIG = "Error creating thumbnail: File with dimensions greater than 12.5 MP"


def _not_found() -> Response:
    return PlainTextResponse("File not found", status_code=404, headers=SAFE_HEADERS)


def _serve(path: Path, mime: str, name: str) -> Response:
    return FileResponse(
        path,
        media_type=mime,
        filename=name,
        content_disposition_type=disposition(mime),
        headers={**SAFE_HEADERS, "Cache-Control": "max-age=86400"},
    )


async def image(request: Request, site: Site, db: Database) -> Response:
    if site.files_dir is None:
        return _not_found()
    root = (site.files_dir / "images").resolve()
    path = unquote(str(request.path_params.get("path", "")))
    thumb = _THUMB.fullmatch(path)
    original = _ORIGINAL.fullmatch(thumb.group(1) if thumb else path)
    if original is None:
        return _not_found()
    archived, hashed, stored = original.groups()
    name = stored.split("!", 1)[1] if archived and "!" in stored else stored
    # One URL per file: the hashed folders must be the name's own.
    if hashed != hash_path(name):
        return _not_found()
    target = (root / original.group(0)).resolve()
    if root not in target.parents or not target.is_file():
        return _not_found()
    row = await db.read(stored_file, name, stored if archived else None)
    if row is None or row.hidden:
        return _not_found()
    if thumb is None:
        return _serve(target, row.mime, name)
    return await _thumbnail(site, root, target, row, name, int(thumb.group(2)), thumb.group(3))


async def _thumbnail(
    site: Site, root: Path, original: Path, row: StoredFile, name: str, width: int, asked: str
) -> Response:
    """A scaled copy under the file's own name, at a width the wiki gave out, of a raster image
    small enough to scale; the original itself when it would not get smaller."""
    assert site.files_dir is not None
    if asked != name or not row.bitmap or width <= 0:
        return _not_found()
    if width >= row.width:
        return _serve(original, row.mime, name)
    if thumb_cache.too_big(row.width, row.height):
        return PlainTextResponse(TOO_BIG, status_code=400, headers=SAFE_HEADERS)
    if not thumb_cache.allowed(site.files_dir, name, width):
        return _not_found()
    relative = original.relative_to(root)
    cached = root / "thumb" / relative / f"{width}px-{name}"
    if not cached.is_file():
        made = await workers.run(
            thumb_cache.make, original, cached, width, root / "thumb", site.thumb_cache_bytes
        )
        if not made:
            return _serve(original, row.mime, name)
    return _serve(cached, row.mime, name)
