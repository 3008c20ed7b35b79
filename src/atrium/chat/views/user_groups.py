"""User groups: GET /user_groups, create, PATCH/DELETE /user_groups/{id}, its members."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.user_groups import create_group, delete_group, update_group, update_members
from atrium.chat.errors import ChatError
from atrium.chat.guards import guarded, user_group_editor
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries import groups as group_queries
from atrium.core.db import Conn

_GROUP_ID = Param("user_group_id", path=True)


@api(Endpoint())
async def get_groups(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    groups = await req.runtime.db.read(group_queries.realm_groups, req.me.realm_id)
    return {"user_groups": groups}


@guarded(
    user_group_editor,
    Endpoint(
        (
            Param("name", default=REQUIRED),
            Param("members", list[int], REQUIRED),
            Param("description", default=REQUIRED),
        )
    ),
)
async def create(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(
        create_group, req.me, args["name"], args["description"], args["members"]
    )
    return {}


@guarded(user_group_editor, Endpoint((_GROUP_ID, Param("name"), Param("description"))))
async def update(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(
        update_group, req.me, args["user_group_id"], args["name"], args["description"]
    )
    return {}


@guarded(user_group_editor, Endpoint((_GROUP_ID,)))
async def delete(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(delete_group, req.me, args["user_group_id"])
    return {}


@guarded(
    user_group_editor,
    Endpoint((_GROUP_ID, Param("add", list[int], []), Param("delete", list[int], []))),
)
async def update_group_members(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(
        update_members, req.me, args["user_group_id"], args["add"], args["delete"]
    )
    return {}


@api(Endpoint((_GROUP_ID, Param("direct_member_only", bool, False))))
async def get_members(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    def read(conn: Conn) -> list[int]:
        group = group_queries.group_row(conn, req.me.realm_id, args["user_group_id"])
        if group is None:
            raise ChatError("Invalid user group")
        return group_queries.group_member_ids(
            conn, group["id"], direct_only=args["direct_member_only"]
        )

    return {"members": await req.runtime.db.read(read)}
