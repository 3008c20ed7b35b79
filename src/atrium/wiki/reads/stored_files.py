"""What `/images/` needs to know of a stored file before serving it: the type recorded when it
was verified at upload (never guessed from its name) and its size, for the current version or an
old one (`oldimage`, by its archive name)."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema

IMG = schema.image
OI = schema.oldimage


@dataclass(frozen=True)
class StoredFile:
    mime: str
    width: int
    height: int
    bitmap: bool
    # An old version whose file is hidden (revision deletion): served to no one at its URL, as
    # MediaWiki moves it out of the public zone; Special:RevisionDelete shows it to those who may.
    hidden: bool = False
    # The old version's revision-deletion bits (`oi_deleted`).
    deleted: int = 0


def stored_file(conn: Conn, name: str, archive_name: str | None) -> StoredFile | None:
    if archive_name is None:
        row = conn.one(
            sa.select(
                IMG.c.img_major_mime, IMG.c.img_minor_mime, IMG.c.img_width, IMG.c.img_height,
                IMG.c.img_media_type,
            ).where(IMG.c.img_name == name)
        )  # fmt: skip
        prefix = "img"
    else:
        row = conn.one(
            sa.select(
                OI.c.oi_major_mime, OI.c.oi_minor_mime, OI.c.oi_width, OI.c.oi_height,
                OI.c.oi_media_type, OI.c.oi_deleted,
            ).where(OI.c.oi_name == name, OI.c.oi_archive_name == archive_name)
        )  # fmt: skip
        prefix = "oi"
    if row is None:
        return None
    return StoredFile(
        f"{row[f'{prefix}_major_mime']}/{row[f'{prefix}_minor_mime']}",
        int(row[f"{prefix}_width"] or 0),
        int(row[f"{prefix}_height"] or 0),
        row[f"{prefix}_media_type"] == "BITMAP",
        hidden=bool(int(row.get("oi_deleted") or 0) & 1),
        deleted=int(row.get("oi_deleted") or 0),
    )
