"""User groups: create, rename or describe, delete, and change members.

Who may manage groups is Zulip's: the realm's `user_group_edit_policy` decides who may touch
groups at all; moderators and administrators may edit any group, others only the groups they
belong to; system groups (`@role:…`) are never edited.
"""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries import groups as group_queries
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.users import active_user_ids
from atrium.core.db import Conn

G = schema.user_group.c
M = schema.user_group_member.c
U = schema.user.c

MAX_GROUP_NAME_LENGTH = 100
# Names reserved for system groups and mention syntax.
INVALID_NAME_PREFIXES = ("@", "role:", "user:", "stream:")


def check_can_edit_groups(conn: Conn, actor: User) -> None:
    realm = load_realm(conn, actor.realm_id)
    if not actor.satisfies_policy(realm.setting("user_group_edit_policy"), realm, time.time()):
        raise ChatError("Insufficient permission")


def check_group_name(name: str) -> str:
    if name.strip() == "":
        raise ChatError("User group name can't be empty!")
    if len(name) > MAX_GROUP_NAME_LENGTH:
        raise ChatError(f"User group name cannot exceed {MAX_GROUP_NAME_LENGTH} characters.")
    for prefix in INVALID_NAME_PREFIXES:
        if name.startswith(prefix):
            raise ChatError(f"User group name cannot start with '{prefix}'.")
    return name


def group_for_editing(conn: Conn, actor: User, group_id: int) -> Any:
    """The group, if the actor may change it: `Invalid user group` / `Insufficient permission`."""
    group = group_queries.group_row(conn, actor.realm_id, group_id)
    if group is None:
        raise ChatError("Invalid user group")
    if group["is_system_group"]:
        raise ChatError("Insufficient permission")
    if actor.is_moderator:
        return group
    is_member = conn.scalar(
        sa.select(M.user_id).where(M.user_group_id == group_id, M.user_id == actor.id)
    )
    if is_member is None:
        raise ChatError("Insufficient permission")
    return group


def _name_taken(conn: Conn, realm_id: int, name: str, except_id: int | None = None) -> bool:
    query = sa.select(G.id).where(G.realm_id == realm_id, G.name == name)
    if except_id is not None:
        query = query.where(G.id != except_id)
    return conn.scalar(query) is not None


def _user_ids_in_realm(conn: Conn, realm_id: int, user_ids: list[int]) -> list[int]:
    found = set(conn.scalars(sa.select(U.id).where(U.id.in_(user_ids), U.realm_id == realm_id)))
    for user_id in user_ids:
        if user_id not in found:
            raise ChatError(f"Invalid user ID: {user_id}")
    return list(dict.fromkeys(user_ids))


def create_group(
    conn: Conn, actor: User, name: str, description: str, members: list[int]
) -> Outcome[int]:
    check_can_edit_groups(conn, actor)
    name = check_group_name(name)
    member_ids = _user_ids_in_realm(conn, actor.realm_id, members)
    if _name_taken(conn, actor.realm_id, name):
        raise ChatError(f"User group '{name}' already exists.")
    group_id: int = conn.scalar(
        sa.insert(schema.user_group)
        .values(realm_id=actor.realm_id, name=name, description=description)
        .returning(G.id)
    )
    conn.executemany(
        sa.insert(schema.user_group_member).values(
            user_group_id=sa.bindparam("group_id"), user_id=sa.bindparam("user_id")
        ),
        [{"group_id": group_id, "user_id": uid} for uid in member_ids],
    )
    row = group_queries.group_row(conn, actor.realm_id, group_id)
    event = {
        "type": "user_group",
        "op": "add",
        "group": group_queries.group_dict(row, sorted(member_ids), []),
    }
    return Outcome(group_id, [Notice(event, active_user_ids(conn, actor.realm_id))])


def update_group(
    conn: Conn, actor: User, group_id: int, name: str | None, description: str | None
) -> Outcome[None]:
    check_can_edit_groups(conn, actor)
    if name is None and description is None:
        raise ChatError("No new data supplied")
    group = group_for_editing(conn, actor, group_id)
    audience = active_user_ids(conn, actor.realm_id)
    notices = []
    if name is not None and name != group["name"]:
        name = check_group_name(name)
        if _name_taken(conn, actor.realm_id, name, except_id=group_id):
            raise ChatError(f"User group '{name}' already exists.")
        conn.execute(sa.update(schema.user_group).where(G.id == group_id).values(name=name))
        notices.append(
            Notice(
                {
                    "type": "user_group",
                    "op": "update",
                    "group_id": group_id,
                    "data": {"name": name},
                },
                audience,
            )
        )
    if description is not None and description != group["description"]:
        conn.execute(
            sa.update(schema.user_group).where(G.id == group_id).values(description=description)
        )
        notices.append(
            Notice(
                {
                    "type": "user_group",
                    "op": "update",
                    "group_id": group_id,
                    "data": {"description": description},
                },
                audience,
            )
        )
    return Outcome(None, notices)


def delete_group(conn: Conn, actor: User, group_id: int) -> Outcome[None]:
    check_can_edit_groups(conn, actor)
    group_for_editing(conn, actor, group_id)
    conn.execute(sa.delete(schema.user_group_member).where(M.user_group_id == group_id))
    SG = schema.user_group_subgroup.c
    conn.execute(
        sa.delete(schema.user_group_subgroup).where(
            sa.or_(SG.supergroup_id == group_id, SG.subgroup_id == group_id)
        )
    )
    conn.execute(sa.delete(schema.user_group).where(G.id == group_id))
    event = {"type": "user_group", "op": "remove", "group_id": group_id}
    return Outcome(None, [Notice(event, active_user_ids(conn, actor.realm_id))])


def update_members(
    conn: Conn, actor: User, group_id: int, add: list[int], delete: list[int]
) -> Outcome[None]:
    check_can_edit_groups(conn, actor)
    if not add and not delete:
        raise ChatError('Nothing to do. Specify at least one of "add" or "delete".')
    group_for_editing(conn, actor, group_id)
    current = set(conn.scalars(sa.select(M.user_id).where(M.user_group_id == group_id)))
    audience = active_user_ids(conn, actor.realm_id)
    notices = []
    if add:
        add_ids = _user_ids_in_realm(conn, actor.realm_id, add)
        for user_id in add_ids:
            if user_id in current:
                raise ChatError(f"User {user_id} is already a member of this group")
        conn.executemany(
            sa.insert(schema.user_group_member).values(
                user_group_id=sa.bindparam("group_id"), user_id=sa.bindparam("user_id")
            ),
            [{"group_id": group_id, "user_id": uid} for uid in add_ids],
        )
        notices.append(
            Notice(
                {
                    "type": "user_group",
                    "op": "add_members",
                    "group_id": group_id,
                    "user_ids": add_ids,
                },
                audience,
            )
        )
    if delete:
        delete_ids = _user_ids_in_realm(conn, actor.realm_id, delete)
        for user_id in delete_ids:
            if user_id not in current:
                raise ChatError(f"There is no member '{user_id}' in this user group")
        conn.execute(
            sa.delete(schema.user_group_member).where(
                M.user_group_id == group_id, M.user_id.in_(delete_ids)
            )
        )
        notices.append(
            Notice(
                {
                    "type": "user_group",
                    "op": "remove_members",
                    "group_id": group_id,
                    "user_ids": delete_ids,
                },
                audience,
            )
        )
    return Outcome(None, notices)
