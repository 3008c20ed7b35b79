"""Scaled copies of uploaded bitmaps (PNG, JPEG, GIF, WebP) for `/images/thumb/…`, made with
Pillow: the width asked for, the height in proportion as MediaWiki rounds it (File::scaleHeight),
Lanczos resampling, the original's format kept (JPEG at $wgJpegQuality 80, a GIF's first frame
with its palette), a JPEG turned as its EXIF Orientation says (MediaWiki's -rotate, so the width
is the turned one). None when the data is not an image Pillow reads or would not get smaller."""

from __future__ import annotations

import io
import math

from PIL import Image, UnidentifiedImageError

from atrium.wiki.files.metadata import jpeg_rotation

JPEG_QUALITY = 80  # $wgJpegQuality
_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
_TURN = {
    90: Image.Transpose.ROTATE_90,
    180: Image.Transpose.ROTATE_180,
    270: Image.Transpose.ROTATE_270,
}


def scaled_height(width: int, height: int, target: int) -> int:
    """File::scaleHeight: the height of a `target`-wide copy (PHP rounds halves up)."""
    return max(1, math.floor(height * target / width + 0.5))


def scale(data: bytes, width: int) -> tuple[bytes, str] | None:
    """(bytes, MIME type) of the image `width` pixels wide."""
    try:
        with Image.open(io.BytesIO(data)) as source:
            fmt = source.format or ""
            turn = _TURN.get(jpeg_rotation(data)) if fmt == "JPEG" else None
            frame: Image.Image = source if turn is None else source.transpose(turn)
            if fmt not in _FORMATS or width <= 0 or width >= frame.width:
                return None
            size = (width, scaled_height(frame.width, frame.height, width))
            frame = frame.convert("RGBA") if frame.mode in ("P", "LA") else frame
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
