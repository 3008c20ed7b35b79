"""The one-time sweep of files stored before uploads were verified: anything under `images/`
that is not a raster image of an allowed extension whose content matches it (HTML, SVG,
scripts...) is moved out of the served tree into the quarantine folder, keeping its path, and
logged by name, so that an old attack stops being served. The scaled copies, a cache, are
dropped with it. A marker file makes later starts skip the sweep."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from atrium.wiki.files.sniff import sniff_mime

log = logging.getLogger("atrium.wiki")

MARKER = ".verified-uploads-1"
_ALLOWED = {"png": "image/png", "gif": "image/gif", "jpg": "image/jpeg", "jpeg": "image/jpeg",
            "webp": "image/webp"}  # fmt: skip


def _acceptable(path: Path) -> bool:
    name = path.name.split("!", 1)[-1]
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    try:
        with path.open("rb") as handle:
            head = handle.read(1024)
    except OSError:
        return False
    return _ALLOWED.get(extension) == sniff_mime(head)


def quarantine_unverified(files_dir: Path, quarantine_dir: Path) -> list[str]:
    """Sweep `files_dir/images` once; returns the moved files' paths below `images/`."""
    images = files_dir / "images"
    marker = files_dir / MARKER
    if marker.exists() or not images.is_dir():
        files_dir.mkdir(parents=True, exist_ok=True)
        marker.touch()
        return []
    shutil.rmtree(images / "thumb", ignore_errors=True)
    moved: list[str] = []
    for folder, _dirs, files in os.walk(images):
        for file in files:
            path = Path(folder) / file
            if path.is_symlink() or not _acceptable(path):
                relative = path.relative_to(images)
                target = quarantine_dir / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(path), target)
                moved.append(relative.as_posix())
                log.warning("quarantined an unverified upload: images/%s", relative.as_posix())
    marker.touch()
    return moved
