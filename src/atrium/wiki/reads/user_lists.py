"""The lists of `Special:ListUsers` (users by name, optionally of one group) and
`Special:ActiveUsers` (users with changes in the last days, with their number), and the file
searches of `Special:MIMESearch` and `Special:FileDuplicateSearch`. Users a `hidename` block
hides are left out unless the reader may see them."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

U = schema.user
UG = schema.user_groups
B = schema.ipblocks
A = schema.actor
RC = schema.recentchanges
IMG = schema.image


def _visible(see_hidden: bool) -> sa.ColumnElement[bool]:
    if see_hidden:
        return sa.true()
    return ~sa.exists().where(B.c.ipb_user == U.c.user_id, B.c.ipb_deleted == sa.true())


def groups_of(conn: Conn, user_ids: list[int], now: str) -> dict[int, list[str]]:
    """Each user's explicit groups that have not expired."""
    if not user_ids:
        return {}
    found: dict[int, list[str]] = {}
    rows = conn.all(
        sa.select(UG.c.ug_user, UG.c.ug_group)
        .where(UG.c.ug_user.in_(user_ids))
        .where(sa.or_(UG.c.ug_expiry.is_(None), UG.c.ug_expiry > now))
        .order_by(UG.c.ug_group)
    )
    for row in rows:
        found.setdefault(int(row["ug_user"]), []).append(str(row["ug_group"]))
    return found


def list_users(
    conn: Conn, start: str, group: str, limit: int, see_hidden: bool, now: str
) -> list[Row]:
    """Up to `limit` + 1 users from the name `start` on, of `group` when one is given."""
    query = sa.select(U.c.user_id, U.c.user_name, U.c.user_editcount, U.c.user_registration).where(
        _visible(see_hidden)
    )
    if start:
        query = query.where(U.c.user_name >= start)
    if group:
        query = query.where(
            sa.exists().where(
                UG.c.ug_user == U.c.user_id,
                UG.c.ug_group == group,
                sa.or_(UG.c.ug_expiry.is_(None), UG.c.ug_expiry > now),
            )
        )
    return conn.all(query.order_by(U.c.user_name).limit(limit + 1))


def active_users(conn: Conn, since: str, start: str, limit: int, see_hidden: bool) -> list[Row]:
    """Up to `limit` + 1 registered users with changes since `since`, by name, with how many
    (ActiveUsersPager over recent changes, log entries included)."""
    actions = sa.func.count(RC.c.rc_id).label("actions")
    query = (
        sa.select(U.c.user_id, U.c.user_name, actions)
        .select_from(
            U.join(A, A.c.actor_user == U.c.user_id).join(RC, RC.c.rc_actor == A.c.actor_id)
        )
        .where(RC.c.rc_timestamp >= since, _visible(see_hidden))
        .group_by(U.c.user_id, U.c.user_name)
    )
    if start:
        query = query.where(U.c.user_name >= start)
    return conn.all(query.order_by(U.c.user_name).limit(limit + 1))


def files_of_type(conn: Conn, major: str, minor: str | None, offset: int, limit: int) -> list[Row]:
    """Up to `limit` + 1 files of a MIME type (`minor` None: any subtype), by name."""
    query = sa.select(
        IMG.c.img_name, IMG.c.img_size, IMG.c.img_width, IMG.c.img_height,
        IMG.c.img_major_mime, IMG.c.img_minor_mime, IMG.c.img_timestamp,
    ).where(IMG.c.img_major_mime == major)  # fmt: skip
    if minor is not None:
        query = query.where(IMG.c.img_minor_mime == minor)
    return conn.all(query.order_by(IMG.c.img_name).offset(offset).limit(limit + 1))


def duplicates_of(conn: Conn, name: str) -> tuple[Row | None, list[Row]]:
    """A file and every file with the same content (its SHA-1), itself included."""
    found = conn.one(
        sa.select(IMG.c.img_name, IMG.c.img_sha1, IMG.c.img_size).where(IMG.c.img_name == name)
    )
    if found is None:
        return None, []
    same = conn.all(
        sa.select(IMG.c.img_name, IMG.c.img_size, IMG.c.img_timestamp)
        .where(IMG.c.img_sha1 == found["img_sha1"])
        .order_by(IMG.c.img_name)
    )
    return found, same
