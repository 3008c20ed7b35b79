"""A content-addressed file store under the data directory.

Uploaded bytes never go into the database: a file is stored once under the SHA-256 of its
content (`blobs/ab/cd/abcd…`), and the database keeps only that hash. Two uploads of the same
bytes share one file. Writing streams in fixed-size chunks through a temporary file in the same
directory tree, then renames it into place, so a crash leaves no half-written blob under a
content name and memory stays flat whatever the file's size.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import BinaryIO

CHUNK_SIZE = 256 * 1024


class TooLarge(Exception):
    """The stream was longer than the caller's limit; nothing was stored."""


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, sha256: str) -> Path:
        if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
            raise ValueError("not a SHA-256 hex digest")
        return self.root / sha256[:2] / sha256[2:4] / sha256

    def save(self, source: BinaryIO, max_size: int | None = None) -> tuple[str, int]:
        """Copy `source` into the store; returns (sha256, size). Blocking: run it in a thread."""
        tmp_dir = self.root / "tmp"
        tmp_dir.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        size = 0
        fd, tmp_name = tempfile.mkstemp(dir=tmp_dir)
        try:
            with os.fdopen(fd, "wb") as out:
                while chunk := source.read(CHUNK_SIZE):
                    size += len(chunk)
                    if max_size is not None and size > max_size:
                        raise TooLarge
                    digest.update(chunk)
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            sha = digest.hexdigest()
            final = self.path(sha)
            final.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp_name, final)
        except BaseException:
            Path(tmp_name).unlink(missing_ok=True)
            raise
        return sha, size

    def exists(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    def delete(self, sha256: str) -> None:
        """Remove a blob no row refers to any more (the caller checked that)."""
        self.path(sha256).unlink(missing_ok=True)
