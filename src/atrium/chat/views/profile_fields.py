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
from atrium.chat.guards import realm_admin
from atrium.chat.http import ApiRequest
from atrium.chat.queries.profile_fields import profile_field_dicts
from atrium.chat.typed_endpoint import Json, PathOnly, typed_endpoint


@typed_endpoint
async def get_fields(req: ApiRequest) -> dict[str, Any]:
    return {"custom_fields": await req.runtime.db.read(profile_field_dicts, req.me.realm_id)}


@typed_endpoint(guard=realm_admin)
async def create(
    req: ApiRequest,
    *,
    name: str = "",
    hint: str = "",
    field_type: Json[int],
    field_data: Json[dict[str, Any]] = {},  # noqa: B006 (never mutated)
    display_in_profile_summary: Json[bool] = False,
) -> dict[str, Any]:
    field_id = await req.runtime.write(
        create_field,
        req.me,
        name,
        hint,
        field_type,
        field_data,
        display_in_profile_summary,
    )
    return {"id": field_id}


@typed_endpoint(guard=realm_admin)
async def reorder(req: ApiRequest, *, order: Json[list[int]]) -> dict[str, Any]:
    await req.runtime.write(reorder_fields, req.me, order)
    return {}


@typed_endpoint(guard=realm_admin)
async def update(
    req: ApiRequest,
    *,
    field_id: PathOnly[int],
    name: str | None = None,
    hint: str | None = None,
    field_data: Json[dict[str, Any] | None] = None,
    display_in_profile_summary: Json[bool | None] = None,
) -> dict[str, Any]:
    await req.runtime.write(
        update_field,
        req.me,
        field_id,
        name,
        hint,
        field_data,
        display_in_profile_summary,
    )
    return {}


@typed_endpoint(guard=realm_admin)
async def delete(req: ApiRequest, *, field_id: PathOnly[int]) -> dict[str, Any]:
    await req.runtime.write(delete_field, req.me, field_id)
    return {}


@typed_endpoint
async def update_own(req: ApiRequest, *, data: Json[list[dict[str, Any]]]) -> dict[str, Any]:
    await req.runtime.write(update_own_profile_data, req.me, data)
    return {}


@typed_endpoint
async def remove_own(req: ApiRequest, *, data: Json[list[int]]) -> dict[str, Any]:
    await req.runtime.write(remove_own_profile_data, req.me, data)
    return {}
