"""GET/POST/PATCH /realm/profile_fields (PATCH reorders), PATCH/DELETE /realm/profile_fields/{id},
and a user's own values: PATCH/DELETE /users/me/profile_data."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.profile_fields import (
    create_field,
    delete_field,
    remove_own_profile_data,
    reorder_fields,
    update_field,
    update_own_profile_data,
)
from atrium.chat.guards import guarded, realm_admin
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries.profile_fields import profile_field_dicts


@api(Endpoint())
async def get_fields(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    return {"custom_fields": await req.runtime.db.read(profile_field_dicts, req.me.realm_id)}


@guarded(
    realm_admin,
    Endpoint(
        (
            Param("name", default=""),
            Param("hint", default=""),
            Param("field_type", int, REQUIRED),
            Param("field_data", dict[str, Any], {}),
            Param("display_in_profile_summary", bool, False),
        )
    ),
)
async def create(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    field_id = await req.runtime.write(
        create_field,
        req.me,
        args["name"],
        args["hint"],
        args["field_type"],
        args["field_data"],
        args["display_in_profile_summary"],
    )
    return {"id": field_id}


@guarded(realm_admin, Endpoint((Param("order", list[int], REQUIRED),)))
async def reorder(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(reorder_fields, req.me, args["order"])
    return {}


@guarded(
    realm_admin,
    Endpoint(
        (
            Param("field_id", path=True),
            Param("name"),
            Param("hint"),
            Param("field_data", dict[str, Any] | None, None),
            Param("display_in_profile_summary", bool | None, None),
        )
    ),
)
async def update(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(
        update_field,
        req.me,
        args["field_id"],
        args["name"],
        args["hint"],
        args["field_data"],
        args["display_in_profile_summary"],
    )
    return {}


@guarded(realm_admin, Endpoint((Param("field_id", path=True),)))
async def delete(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(delete_field, req.me, args["field_id"])
    return {}


@api(Endpoint((Param("data", list[dict[str, Any]], REQUIRED),)))
async def update_own(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(update_own_profile_data, req.me, args["data"])
    return {}


@api(Endpoint((Param("data", list[int], REQUIRED),)))
async def remove_own(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(remove_own_profile_data, req.me, args["data"])
    return {}
