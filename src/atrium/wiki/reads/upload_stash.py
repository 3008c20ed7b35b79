"""A user's upload stash as Special:UploadStash reads it: the keys of their entries (finished
files and uploads still receiving chunks), and one finished file of theirs by key. Every query
names the owner: no one reaches another's stash."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

US = schema.uploadstash
FINISHED = "finished"


def stashed(conn: Conn, user_id: int) -> list[Row]:
    """UploadStash::listFiles: the user's entries, by key."""
    return conn.all(
        sa.select(US.c.us_key, US.c.us_status, US.c.us_mime)
        .where(US.c.us_user == user_id)
        .order_by(US.c.us_key)
    )


def stashed_file(conn: Conn, user_id: int, key: str) -> Row | None:
    """UploadStash::getFile: the user's finished file under `key`."""
    return conn.one(
        sa.select(US).where(US.c.us_key == key, US.c.us_user == user_id, US.c.us_status == FINISHED)
    )
