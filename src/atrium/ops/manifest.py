"""The backup folder's layout and its manifest: what was saved, by which versions, with checksums.

DEST/manifest.json             versions, revisions, and every file's size and SHA-256
DEST/databases/<service>.sqlite3   the embedded mode's databases (SQLite's online backup)
DEST/databases/postgres.dump   the scale-out mode's service schemas (pg_dump, custom format)
DEST/files/...                 the data directory's uploads and secret keys
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

FORMAT = 1
MANIFEST = "manifest.json"
DATABASES = "databases"
FILES = "files"
POSTGRES_DUMP = "postgres.dump"
# Every database: the core one (sessions, identities), each service's, and the bridge between them.
SERVICES = ("core", "chat", "wiki", "bridge")


class BackupError(Exception):
    """A backup or restore that cannot go on; the message says why, in one line."""


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def walk_files(root: Path) -> Iterator[Path]:
    """Every regular file under `root`, in a stable order."""
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink():
                yield path


def write_manifest(dest: Path, manifest: dict[str, Any]) -> None:
    path = dest / MANIFEST
    path.write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    path.chmod(0o600)


def read_manifest(src: Path) -> dict[str, Any]:
    path = src / MANIFEST
    if not path.is_file():
        raise BackupError(f"{src} is not an Atrium backup (no {MANIFEST})")
    try:
        manifest: dict[str, Any] = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise BackupError(f"{path} is damaged: {exc}") from None
    if manifest.get("format") != FORMAT:
        raise BackupError(f"{src} has backup format {manifest.get('format')!r}; expected {FORMAT}")
    return manifest


def verify_checksums(src: Path, manifest: dict[str, Any]) -> list[str]:
    """The problems found: files missing, changed, or present but not listed."""
    problems = []
    listed: dict[str, dict[str, Any]] = manifest.get("files", {})
    for relative, entry in listed.items():
        path = src / relative
        if not path.is_file():
            problems.append(f"{relative}: missing")
        elif path.stat().st_size != entry["size"] or sha256(path) != entry["sha256"]:
            problems.append(f"{relative}: checksum differs")
    for path in walk_files(src):
        relative = path.relative_to(src).as_posix()
        if relative != MANIFEST and relative not in listed:
            problems.append(f"{relative}: not in the manifest")
    return problems
