"""What a file description page shows besides its text: the current version, the earlier ones
(newest first) and the pages that use the file, with who uploaded each version and whether a
`hidename` block hides them."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

IMG = schema.image
OI = schema.oldimage
A = schema.actor
C = schema.comment
IL = schema.imagelinks
P = schema.page
B = schema.ipblocks


@dataclass(frozen=True)
class FilePage:
    current: Row | None
    older: list[Row]
    used_by: list[Row]  # page_namespace, page_title
    more_users: bool
    hidden_users: set[int]  # uploaders a hidename block hides


def file_page(conn: Conn, name: str, usage_limit: int) -> FilePage:
    current = conn.one(
        sa.select(IMG, A.c.actor_name, A.c.actor_user, C.c.comment_text)
        .join(A, A.c.actor_id == IMG.c.img_actor)
        .join(C, C.c.comment_id == IMG.c.img_description_id)
        .where(IMG.c.img_name == name)
    )
    older = conn.all(
        sa.select(OI, A.c.actor_name, A.c.actor_user, C.c.comment_text)
        .join(A, A.c.actor_id == OI.c.oi_actor)
        .join(C, C.c.comment_id == OI.c.oi_description_id)
        .where(OI.c.oi_name == name)
        .order_by(OI.c.oi_timestamp.desc())
    )
    used = conn.all(
        sa.select(P.c.page_namespace, P.c.page_title)
        .join(P, P.c.page_id == IL.c.il_from)
        .where(IL.c.il_to == name)
        .order_by(P.c.page_namespace, P.c.page_title)
        .limit(usage_limit + 1)
    )
    uploaders = {int(r["actor_user"]) for r in [current, *older] if r and r["actor_user"]}
    hidden: set[int] = set()
    if uploaders:
        hidden = {
            int(user)
            for user in conn.scalars(
                sa.select(B.c.ipb_user).where(
                    B.c.ipb_user.in_(sorted(uploaders)), B.c.ipb_deleted == sa.true()
                )
            )
        }
    return FilePage(current, older, used[:usage_limit], len(used) > usage_limit, hidden)
