"""An uploaded file on its way in: copied from the request in chunks to a temporary file in the
data directory, its size counted against the largest upload as it arrives, so that a large upload
never sits in memory whole. Verification and publishing then read the file, and publishing
moves it into place."""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

CHUNK = 1024 * 1024
HEAD = 4096  # what the content checks read: magic numbers and the HTML sniffing window


class TooLarge(Exception):
    """The upload passed the largest size accepted; the partial file is already removed."""


class ChunkSource(Protocol):
    async def read(self, size: int = -1) -> bytes: ...


@dataclass
class Incoming:
    name: str  # the client's file name
    path: Path  # the temporary copy in the data directory
    size: int

    def head(self, length: int = HEAD) -> bytes:
        with self.path.open("rb") as handle:
            return handle.read(length)

    def read(self) -> bytes:
        return self.path.read_bytes()

    def discard(self) -> None:
        self.path.unlink(missing_ok=True)


def spool_dir(files_dir: Path) -> Path:
    """Where uploads wait: inside the files directory, so that publishing is a rename."""
    directory = files_dir / "tmp"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def _new_path(files_dir: Path) -> Path:
    return spool_dir(files_dir) / f"upload-{secrets.token_hex(12)}"


async def spool(source: ChunkSource, name: str, files_dir: Path, max_size: int) -> Incoming:
    """Copy `source` to a temporary file chunk by chunk, refusing it past `max_size` bytes."""
    path = _new_path(files_dir)
    size = 0
    try:
        with path.open("wb") as out:
            while chunk := await source.read(CHUNK):
                size += len(chunk)
                if size > max_size:
                    raise TooLarge
                out.write(chunk)
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    return Incoming(name, path, size)


def from_bytes(name: str, data: bytes, files_dir: Path, max_size: int) -> Incoming:
    """A file that already came whole (the lenient multipart reader, the upload stash)."""
    if len(data) > max_size:
        raise TooLarge
    path = _new_path(files_dir)
    path.write_bytes(data)
    return Incoming(name, path, len(data))
