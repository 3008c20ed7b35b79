"""Scaled copies of uploaded images for the inline previews that `/thumbnail` serves.

A copy is made once per stored file (the store is content-addressed, so the source's SHA-256
names it) and kept under the data directory; later requests read the file. Scaling holds the
CPU, so it runs in the worker pool. Sources above `MAX_PIXELS` are never decoded, so a small
file that expands to a huge bitmap cannot exhaust memory.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import warnings
from pathlib import Path

from PIL import Image, ImageOps, UnidentifiedImageError

# Zulip 7 asks its thumbnailer for "0x300": 300 pixels high; the width is bounded too so that
# a panorama does not become a huge preview.
THUMBNAIL_BOX = (1000, 300)
MAX_PIXELS = 50_000_000
SCALABLE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


class NotScalable(Exception):
    """The stored bytes are not an image that can be previewed as a still copy."""


def cache_path(data_dir: Path, sha256: str) -> Path:
    """Where the preview of the stored file `sha256` is kept."""
    return data_dir / "thumbnails" / sha256[:2] / sha256[2:4] / f"{sha256}-thumbnail.webp"


def make_thumbnail(source: Path, target: Path) -> Path:
    """Scale `source` into `target` (WebP) unless it is there already. Blocking: run it in the
    worker pool. An animated image raises NotScalable: its preview is the original."""
    if target.is_file():
        return target
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(source) as image:
                width, height = image.size
                if width * height > MAX_PIXELS:
                    raise NotScalable("too large")
                if getattr(image, "is_animated", False):
                    raise NotScalable("animated")
                image.load()
                scaled = ImageOps.exif_transpose(image) or image
                scaled = scaled.convert("RGBA" if "A" in scaled.getbands() else "RGB")
                scaled.thumbnail(THUMBNAIL_BOX)
                buffer = io.BytesIO()
                scaled.save(buffer, format="WEBP", quality=80)
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        raise NotScalable("not an image") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    # Written under a temporary name and renamed, so that a reader never sees half a file.
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(buffer.getvalue())
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    return target
