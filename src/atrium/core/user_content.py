"""Headers for serving bytes that users uploaded (wiki files and their thumbnails).

Those bytes are the uploader's, not ours: nothing in them may run, load anything or be sniffed
into another type, and only the raster types a browser shows as pictures are shown in place;
anything else (a file stored before uploads were verified) is downloaded.
"""

from __future__ import annotations

RASTER_TYPES = frozenset({"image/png", "image/gif", "image/jpeg", "image/webp"})
SANDBOX_CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox"
SAFE_HEADERS = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": SANDBOX_CSP}


def disposition(content_type: str) -> str:
    """`inline` for the raster types, `attachment` for everything else."""
    return "inline" if content_type in RASTER_TYPES else "attachment"
