"""User groups: GET /user_groups, create, PATCH/DELETE /user_groups/{id}, its members."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.user_groups import create_group, delete_group, update_group, update_members
from atrium.chat.errors import ChatError
from atrium.chat.guards import user_group_editor
from atrium.chat.http import ApiRequest
from atrium.chat.queries import groups as group_queries
from atrium.chat.typed_endpoint import Json, PathOnly, typed_endpoint
from atrium.core.db import Conn


@typed_endpoint
async def get_groups(req: ApiRequest) -> dict[str, Any]:
    groups = await req.runtime.db.read(group_queries.realm_groups, req.me.realm_id)
    return {"user_groups": groups}


@typed_endpoint(guard=user_group_editor)
async def create(
    req: ApiRequest, *, name: str, members: Json[list[int]], description: str
) -> dict[str, Any]:
    await req.runtime.write(create_group, req.me, name, description, members)
    return {}


@typed_endpoint(guard=user_group_editor)
async def update(
    req: ApiRequest,
    *,
    user_group_id: PathOnly[int],
    name: str | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    await req.runtime.write(update_group, req.me, user_group_id, name, description)
    return {}


@typed_endpoint(guard=user_group_editor)
async def delete(req: ApiRequest, *, user_group_id: PathOnly[int]) -> dict[str, Any]:
    await req.runtime.write(delete_group, req.me, user_group_id)
    return {}


@typed_endpoint(guard=user_group_editor)
async def update_group_members(
    req: ApiRequest,
    *,
    user_group_id: PathOnly[int],
    add: Json[list[int]] = [],  # noqa: B006 (never mutated)
    delete: Json[list[int]] = [],  # noqa: B006 (never mutated)
) -> dict[str, Any]:
    await req.runtime.write(update_members, req.me, user_group_id, add, delete)
    return {}


@typed_endpoint
async def get_members(
    req: ApiRequest, *, user_group_id: PathOnly[int], direct_member_only: Json[bool] = False
) -> dict[str, Any]:
    def read(conn: Conn) -> list[int]:
        group = group_queries.group_row(conn, req.me.realm_id, user_group_id)
        if group is None:
            raise ChatError("Invalid user group")
        return group_queries.group_member_ids(conn, group["id"], direct_only=direct_member_only)

    return {"members": await req.runtime.db.read(read)}
