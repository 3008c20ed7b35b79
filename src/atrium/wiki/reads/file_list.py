"""The uploaded files for `Special:ListFiles`, newest first (optionally one uploader's), with who
uploaded them and which uploaders a `hidename` block hides."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

IMG = schema.image
A = schema.actor
C = schema.comment
B = schema.ipblocks


def list_files(conn: Conn, uploader: str | None, limit: int) -> tuple[list[Row], set[int]]:
    query = (
        sa.select(
            IMG.c.img_name,
            IMG.c.img_timestamp,
            IMG.c.img_size,
            IMG.c.img_width,
            IMG.c.img_height,
            A.c.actor_name,
            A.c.actor_user,
            C.c.comment_text,
        )
        .join(A, A.c.actor_id == IMG.c.img_actor)
        .join(C, C.c.comment_id == IMG.c.img_description_id)
    )
    if uploader:
        query = query.where(A.c.actor_name == uploader)
    rows = conn.all(query.order_by(IMG.c.img_timestamp.desc(), IMG.c.img_name).limit(limit))
    users = sorted({int(r["actor_user"]) for r in rows if r["actor_user"]})
    hidden: set[int] = set()
    if users:
        hidden = {
            int(u)
            for u in conn.scalars(
                sa.select(B.c.ipb_user).where(B.c.ipb_user.in_(users), B.c.ipb_deleted == sa.true())
            )
        }
    return rows, hidden
