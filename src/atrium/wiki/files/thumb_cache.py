"""Which scaled copies `/images/thumb/…` makes, and the bounded store that keeps them.

A copy is made only at a width the wiki itself hands out, so that nobody can make the server
scale (and store) an image at every width:

- the standard steps below: MediaWiki's `$wgThumbLimits` and `$wgImageLimits` widths, the
  gallery and file-list widths, the default thumbnail and their 1.5x and 2x `srcset` widths;
- any other width the wiki gave out in a URL: a page's `[[File:…|NNNpx]]` when the page is
  rendered, the file page's fitted sizes, `prop=imageinfo`'s `iiurlwidth`. Those are recorded
  on disk (an empty file per width, so every worker process sees them), at most
  `MAX_RECORDED` per file.

Sources above `$wgMaxImageArea` pixels are never scaled (MediaWiki accepts them at upload and
shows its thumbnail error instead). The store holds at most `max_bytes`; past it the oldest
copies are removed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from atrium.wiki.files import thumbs
from atrium.wiki.files.paths import hash_path

STANDARD_WIDTHS = frozenset(
    {120, 150, 180, 200, 220, 240, 250, 300, 320, 360, 400, 450, 500, 600, 640, 800, 1024, 1280,
     1600, 1920, 2560}
)  # fmt: skip
MAX_IMAGE_AREA = 12_500_000  # $wgMaxImageArea
MAX_RECORDED = 64
DEFAULT_MAX_BYTES = 512 * 1024 * 1024


def too_big(width: int, height: int) -> bool:
    """BitmapHandler's check: a source this large is not scaled."""
    return width * height > MAX_IMAGE_AREA


def _records(files_dir: Path, name: str) -> Path:
    return files_dir / "thumb-widths" / hash_path(name) / name


def record(files_dir: Path | None, name: str, width: int) -> None:
    """Remember that the wiki gave out a URL of `name` at `width`."""
    if files_dir is None or width in STANDARD_WIDTHS or width <= 0 or "/" in name:
        return
    folder = _records(files_dir, name)
    marker = folder / str(width)
    if marker.exists():
        return
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        if sum(1 for _ in folder.iterdir()) < MAX_RECORDED:
            marker.touch()


def allowed(files_dir: Path, name: str, width: int) -> bool:
    return width in STANDARD_WIDTHS or (_records(files_dir, name) / str(width)).is_file()


def make(original: Path, cached: Path, width: int, thumb_root: Path, max_bytes: int) -> bool:
    """Scale `original` to `width` into `cached`, then keep the store within `max_bytes`.
    False when the image cannot be scaled (MediaWiki then shows the original). Slow: run it in
    the worker pool."""
    scaled = thumbs.scale(original.read_bytes(), width)
    if scaled is None:
        return False
    cached.parent.mkdir(parents=True, exist_ok=True)
    # Two requests may make the same copy at once: each writes its own partial file.
    partial = cached.with_name(f"{cached.name}.{secrets.token_hex(4)}.part")
    partial.write_bytes(scaled[0])
    partial.replace(cached)
    evict(thumb_root, max_bytes)
    return True


def evict(thumb_root: Path, max_bytes: int) -> None:
    """Remove the oldest copies until the store holds at most `max_bytes`."""
    entries: list[tuple[float, int, str]] = []
    total = 0
    for folder, _dirs, files in os.walk(thumb_root):
        for file in files:
            if file.endswith(".part"):  # being written
                continue
            path = os.path.join(folder, file)
            with contextlib.suppress(OSError):
                stat = os.stat(path)
                entries.append((stat.st_mtime, stat.st_size, path))
                total += stat.st_size
    if total <= max_bytes:
        return
    entries.sort()
    for _mtime, size, path in entries:
        if total <= max_bytes:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            total -= size
