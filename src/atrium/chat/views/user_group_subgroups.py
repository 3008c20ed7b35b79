"""GET/POST /user_groups/{id}/subgroups and GET /user_groups/{id}/members/{user_id}."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.user_group_subgroups import update_subgroups
from atrium.chat.errors import ChatError, no_such_user
from atrium.chat.guards import guarded, user_group_editor
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import Endpoint, Param
from atrium.chat.queries import groups as group_queries
from atrium.chat.queries.users import user_row
from atrium.core.db import Conn

_GROUP_ID = Param("user_group_id", path=True)


def _group(conn: Conn, realm_id: int, group_id: int) -> Any:
    group = group_queries.group_row(conn, realm_id, group_id)
    if group is None:
        raise ChatError("Invalid user group")
    return group


@api(Endpoint((_GROUP_ID, Param("direct_subgroup_only", bool, False))))
async def get_subgroups(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    def read(conn: Conn) -> list[int]:
        group = _group(conn, req.me.realm_id, args["user_group_id"])
        if args["direct_subgroup_only"]:
            return group_queries.direct_subgroup_ids(conn, group["id"])
        return sorted(group_queries.recursive_subgroup_ids(conn, group["id"]) - {group["id"]})

    return {"subgroups": await req.runtime.db.read(read)}


@guarded(
    user_group_editor,
    Endpoint((_GROUP_ID, Param("add", list[int], []), Param("delete", list[int], []))),
)
async def update(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(
        update_subgroups, req.me, args["user_group_id"], args["add"], args["delete"]
    )
    return {}


@api(Endpoint((_GROUP_ID, Param("user_id", path=True), Param("direct_member_only", bool, False))))
async def is_member(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    def read(conn: Conn) -> bool:
        group = _group(conn, req.me.realm_id, args["user_group_id"])
        if user_row(conn, req.me.realm_id, args["user_id"]) is None:
            raise no_such_user()
        members = group_queries.group_member_ids(
            conn, group["id"], direct_only=args["direct_member_only"]
        )
        return args["user_id"] in members

    return {"is_user_group_member": await req.runtime.db.read(read)}
