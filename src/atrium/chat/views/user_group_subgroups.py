"""GET/POST /user_groups/{id}/subgroups and GET /user_groups/{id}/members/{user_id}."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.user_group_subgroups import update_subgroups
from atrium.chat.errors import ChatError, no_such_user
from atrium.chat.guards import user_group_editor
from atrium.chat.http import ApiRequest
from atrium.chat.queries import groups as group_queries
from atrium.chat.queries.users import user_row
from atrium.chat.typed_endpoint import Json, PathOnly, typed_endpoint
from atrium.core.db import Conn


def _group(conn: Conn, realm_id: int, group_id: int) -> Any:
    group = group_queries.group_row(conn, realm_id, group_id)
    if group is None:
        raise ChatError("Invalid user group")
    return group


@typed_endpoint
async def get_subgroups(
    req: ApiRequest, *, user_group_id: PathOnly[int], direct_subgroup_only: Json[bool] = False
) -> dict[str, Any]:
    def read(conn: Conn) -> list[int]:
        group = _group(conn, req.me.realm_id, user_group_id)
        if direct_subgroup_only:
            return group_queries.direct_subgroup_ids(conn, group["id"])
        return sorted(group_queries.recursive_subgroup_ids(conn, group["id"]) - {group["id"]})

    return {"subgroups": await req.runtime.db.read(read)}


@typed_endpoint(guard=user_group_editor)
async def update(
    req: ApiRequest,
    *,
    user_group_id: PathOnly[int],
    add: Json[list[int]] = [],  # noqa: B006 (never mutated)
    delete: Json[list[int]] = [],  # noqa: B006 (never mutated)
) -> dict[str, Any]:
    await req.runtime.write(update_subgroups, req.me, user_group_id, add, delete)
    return {}


@typed_endpoint
async def is_member(
    req: ApiRequest,
    *,
    user_group_id: PathOnly[int],
    user_id: PathOnly[int],
    direct_member_only: Json[bool] = False,
) -> dict[str, Any]:
    def read(conn: Conn) -> bool:
        group = _group(conn, req.me.realm_id, user_group_id)
        if user_row(conn, req.me.realm_id, user_id) is None:
            raise no_such_user()
        members = group_queries.group_member_ids(conn, group["id"], direct_only=direct_member_only)
        return user_id in members

    return {"is_user_group_member": await req.runtime.db.read(read)}
