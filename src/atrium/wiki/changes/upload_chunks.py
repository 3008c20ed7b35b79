"""Chunked uploads (MediaWiki's UploadFromChunks): a file sent in pieces, each verified as it
arrives (`uploadcheck.verify_partial`), kept in the stash under one file key until the last
piece is in; then the pieces are joined and the whole file goes through `uploads.prepare` like
any upload, and is stashed under a new key, from which it is published.

Each piece is its own file (`stash/<key>.parts/<offset>`); a piece is accepted only at the
offset the stash row records, and the row's size moves forward in the same statement, so two
requests racing for one offset cannot both be taken. An entry still receiving pieces is never
a file: `uploads.from_stash` refuses it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes import ChangeError
from atrium.wiki.files import incoming
from atrium.wiki.files.incoming import Incoming
from atrium.wiki.timestamps import now14

US = schema.uploadstash
RECEIVING = "chunks"  # us_status of an entry whose pieces are still arriving
MIN_CHUNK = 1024  # $wgMinUploadChunkSize: the smallest piece but the last


class OffsetRefused(ChangeError):
    """A piece at another offset than the stash holds (`offset`: what it holds)."""

    def __init__(self, offset: int) -> None:
        super().__init__("stashfailed", "Invalid chunk offset", "invalid-chunk-offset")
        self.offset = offset


def _parts_dir(files_dir: Path, key: str) -> Path:
    return files_dir / "stash" / f"{key}.parts"


def _part_name(offset: int) -> str:
    return f"{offset:012d}"


def begin(
    conn: Conn, files_dir: Path, user_id: int, name: str, extension: str, first: Incoming
) -> str:
    """A new stash entry holding the first piece; returns its key."""
    key = f"{secrets.token_hex(6)}.{secrets.token_hex(3)}.{user_id}.{extension}"
    parts = _parts_dir(files_dir, key)
    parts.mkdir(parents=True, exist_ok=True)
    conn.execute(
        sa.insert(US).values(
            us_user=user_id,
            us_key=key,
            us_orig_path=name,
            us_path=str(parts),
            us_source_type="file",
            us_timestamp=now14(),
            us_status=RECEIVING,
            us_size=first.size,
            us_sha1="",
        )
    )
    os.replace(first.path, parts / _part_name(0))
    return key


def _receiving(conn: Conn, user_id: int, key: str) -> Mapping[str, Any]:
    row = conn.one(
        sa.select(US).where(
            US.c.us_key == key, US.c.us_user == user_id, US.c.us_status == RECEIVING
        )
    )
    if row is None:
        raise ChangeError(
            "uploadstash-file-not-found",
            f'Key "{key}" not found in stash.',
            "uploadstash-file-not-found",
            (key,),
        )
    return row


def received(conn: Conn, user_id: int, key: str) -> int:
    """How many bytes the entry holds (refused when the caller has no such entry)."""
    return int(_receiving(conn, user_id, key)["us_size"])


def append(conn: Conn, user_id: int, key: str, offset: int, piece: Incoming) -> int:
    """Take a piece at `offset`; returns the bytes held after it."""
    row = _receiving(conn, user_id, key)
    held = int(row["us_size"])
    if held != offset:
        raise OffsetRefused(held)
    claimed = conn.execute(
        sa.update(US)
        .where(US.c.us_id == row["us_id"], US.c.us_size == offset)
        .values(us_size=offset + piece.size)
    )
    if claimed.rowcount != 1:
        raise OffsetRefused(held)
    os.replace(piece.path, Path(str(row["us_path"])) / _part_name(offset))
    return offset + piece.size


def pieces(conn: Conn, user_id: int, key: str) -> tuple[str, Path]:
    """The name asked for and the directory of the pieces of an entry."""
    row = _receiving(conn, user_id, key)
    return str(row["us_orig_path"]), Path(str(row["us_path"]))


def assemble(parts: Path, name: str, files_dir: Path, max_size: int) -> Incoming:
    """The pieces joined in offset order into one file waiting to be verified. Reads and writes
    the whole file: run it in the worker pool."""
    path = incoming.spool_dir(files_dir) / f"upload-{secrets.token_hex(12)}"
    size = 0
    try:
        with path.open("wb") as out:
            for part in sorted(parts.iterdir()):
                size += part.stat().st_size
                if size > max_size:
                    raise incoming.TooLarge
                with part.open("rb") as handle:
                    shutil.copyfileobj(handle, out, incoming.CHUNK)
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    return Incoming(name, path, size)


def drop(conn: Conn, user_id: int, key: str) -> None:
    """Forget an entry and its pieces (once joined, or refused)."""
    row = conn.one(sa.select(US).where(US.c.us_key == key, US.c.us_user == user_id))
    if row is None:
        return
    if row["us_status"] == RECEIVING:
        shutil.rmtree(str(row["us_path"]), ignore_errors=True)
    conn.execute(sa.delete(US).where(US.c.us_id == row["us_id"]))


def clear(conn: Conn, user_id: int) -> int:
    """UploadStash::clear: forget every entry of the user, finished files and pieces alike;
    returns how many there were."""
    rows = conn.all(sa.select(US).where(US.c.us_user == user_id))
    for row in rows:
        if row["us_status"] == RECEIVING:
            shutil.rmtree(str(row["us_path"]), ignore_errors=True)
        else:
            Path(str(row["us_path"])).unlink(missing_ok=True)
    conn.execute(sa.delete(US).where(US.c.us_user == user_id))
    return len(rows)
