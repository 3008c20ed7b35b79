"""Reading user groups: the records of GET /user_groups, memberships through subgroups."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn

G = schema.user_group.c
M = schema.user_group_member.c
SG = schema.user_group_subgroup.c


def group_row(conn: Conn, realm_id: int, group_id: int) -> Any:
    return conn.one(sa.select(schema.user_group).where(G.id == group_id, G.realm_id == realm_id))


def recursive_subgroup_ids(conn: Conn, group_id: int) -> set[int]:
    """The group itself and every group nested in it, at any depth."""
    seen: set[int] = set()
    pending = {group_id}
    while pending:
        seen |= pending
        children = conn.scalars(
            sa.select(SG.subgroup_id).where(SG.supergroup_id.in_(sorted(pending)))
        )
        pending = set(children) - seen
    return seen


def is_user_in_group(conn: Conn, group_id: int, user_id: int) -> bool:
    """Membership as Zulip counts it: directly, or through any subgroup (active users only)."""
    found = conn.scalar(
        sa.select(M.user_id)
        .join(schema.user, schema.user.c.id == M.user_id)
        .where(
            M.user_group_id.in_(sorted(recursive_subgroup_ids(conn, group_id))),
            M.user_id == user_id,
            schema.user.c.is_active.is_(True),
        )
        .limit(1)
    )
    return found is not None


def group_member_ids(conn: Conn, group_id: int, *, direct_only: bool) -> list[int]:
    groups = [group_id] if direct_only else sorted(recursive_subgroup_ids(conn, group_id))
    return conn.scalars(
        sa.select(M.user_id)
        .join(schema.user, schema.user.c.id == M.user_id)
        .where(M.user_group_id.in_(groups), schema.user.c.is_active.is_(True))
        .distinct()
        .order_by(M.user_id)
    )


def group_dict(row: Any, members: list[int], subgroups: list[int]) -> dict[str, Any]:
    """A user group as feature level 185 shows it (can_mention_group came at 191)."""
    return {
        "id": row["id"],
        "name": row["name"],
        "description": row["description"],
        "members": members,
        "direct_subgroup_ids": subgroups,
        "is_system_group": bool(row["is_system_group"]),
    }


def realm_groups(conn: Conn, realm_id: int) -> list[dict[str, Any]]:
    """GET /user_groups and the `realm_user_groups` state: direct members and subgroups."""
    rows = conn.all(sa.select(schema.user_group).where(G.realm_id == realm_id).order_by(G.id))
    ids = [row["id"] for row in rows]
    members: dict[int, list[int]] = defaultdict(list)
    subgroups: dict[int, list[int]] = defaultdict(list)
    if ids:
        for r in conn.all(
            sa.select(M.user_group_id, M.user_id)
            .join(schema.user, schema.user.c.id == M.user_id)
            .where(M.user_group_id.in_(ids), schema.user.c.is_active.is_(True))
            .order_by(M.user_id)
        ):
            members[r["user_group_id"]].append(r["user_id"])
        for r in conn.all(
            sa.select(SG.supergroup_id, SG.subgroup_id)
            .where(SG.supergroup_id.in_(ids))
            .order_by(SG.subgroup_id)
        ):
            subgroups[r["supergroup_id"]].append(r["subgroup_id"])
    return [group_dict(row, members[row["id"]], subgroups[row["id"]]) for row in rows]


def direct_subgroup_ids(conn: Conn, group_id: int) -> list[int]:
    return [
        int(g)
        for g in conn.scalars(
            sa.select(SG.subgroup_id).where(SG.supergroup_id == group_id).order_by(SG.subgroup_id)
        )
    ]
