"""Scaled copies of uploaded bitmaps (PNG, JPEG, GIF, WebP) for `/images/thumb/…`, made with
Pillow: the width asked for, the height in proportion as MediaWiki rounds it (File::scaleHeight),
Lanczos resampling, the original's format kept (JPEG at $wgJpegQuality 80, a GIF's first frame
with its palette). None when the data is not an image Pillow reads or would not get smaller."""

from __future__ import annotations

import io
import math

from PIL import Image, UnidentifiedImageError

JPEG_QUALITY = 80  # $wgJpegQuality
_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


def scaled_height(width: int, height: int, target: int) -> int:
    """File::scaleHeight: the height of a `target`-wide copy (PHP rounds halves up)."""
    return max(1, math.floor(height * target / width + 0.5))


def scale(data: bytes, width: int) -> tuple[bytes, str] | None:
    """(bytes, MIME type) of the image `width` pixels wide."""
    try:
        with Image.open(io.BytesIO(data)) as source:
            fmt = source.format or ""
            if fmt not in _FORMATS or width <= 0 or width >= source.width:
                return None
            size = (width, scaled_height(source.width, source.height, width))
            frame = source.convert("RGBA") if source.mode in ("P", "LA") else source
            if fmt == "JPEG" and frame.mode not in ("RGB", "L", "CMYK"):
                frame = frame.convert("RGB")
            scaled = frame.resize(size, Image.Resampling.LANCZOS)
            if fmt == "GIF":
                scaled = scaled.convert("RGB").quantize(colors=256)
            out = io.BytesIO()
            if fmt == "JPEG":
                scaled.save(out, "JPEG", quality=JPEG_QUALITY)
            else:
                scaled.save(out, fmt)
            return out.getvalue(), _FORMATS[fmt]
    except (OSError, ValueError, SyntaxError, UnidentifiedImageError, Image.DecompressionBombError):
        return None
