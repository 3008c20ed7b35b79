"""Adding and removing a user group's subgroups (POST /user_groups/{id}/subgroups).

A group may not contain itself, directly or through its subgroups: Zulip refuses the cycle.
"""

from __future__ import annotations

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.user_groups import check_can_edit_groups, group_for_editing
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries import groups as group_queries
from atrium.chat.queries.users import active_user_ids
from atrium.core.db import Conn

SG = schema.user_group_subgroup.c


def update_subgroups(
    conn: Conn, actor: User, group_id: int, add: list[int], delete: list[int]
) -> Outcome[None]:
    check_can_edit_groups(conn, actor)
    if not add and not delete:
        raise ChatError('Nothing to do. Specify at least one of "add" or "delete".')
    for subgroup_id in [*add, *delete]:
        if group_queries.group_row(conn, actor.realm_id, subgroup_id) is None:
            raise ChatError(f"Invalid user group ID: {subgroup_id}")
    group_for_editing(conn, actor, group_id)
    current = set(conn.scalars(sa.select(SG.subgroup_id).where(SG.supergroup_id == group_id)))
    audience = active_user_ids(conn, actor.realm_id)
    notices = []
    if add:
        for subgroup_id in add:
            if subgroup_id in current:
                raise ChatError(f"User group {subgroup_id} is already a subgroup of this group.")
            if group_id in group_queries.recursive_subgroup_ids(conn, subgroup_id):
                raise ChatError(
                    f"User group {group_id} is already a subgroup of one of the passed subgroups."
                )
        for subgroup_id in add:
            conn.execute(
                sa.insert(schema.user_group_subgroup).values(
                    supergroup_id=group_id, subgroup_id=subgroup_id
                )
            )
        event = {
            "type": "user_group",
            "op": "add_subgroups",
            "group_id": group_id,
            "direct_subgroup_ids": add,
        }
        notices.append(Notice(event, audience))
    if delete:
        for subgroup_id in delete:
            if subgroup_id not in current:
                raise ChatError(f"User group {subgroup_id} is not a subgroup of this group.")
        conn.execute(
            sa.delete(schema.user_group_subgroup).where(
                SG.supergroup_id == group_id, SG.subgroup_id.in_(delete)
            )
        )
        event = {
            "type": "user_group",
            "op": "remove_subgroups",
            "group_id": group_id,
            "direct_subgroup_ids": delete,
        }
        notices.append(Notice(event, audience))
    return Outcome(None, notices)
