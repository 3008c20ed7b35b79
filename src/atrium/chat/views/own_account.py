"""DELETE /users/me, PATCH /users/me/subscriptions, GET /users/{id}/subscriptions/{stream_id}."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.own_account import deactivate_own_account, update_own_subscriptions
from atrium.chat.auth import end_browser_sessions
from atrium.chat.http import ApiRequest
from atrium.chat.queries.subscription_status import is_subscribed
from atrium.chat.typed_endpoint import Json, PathOnly, typed_endpoint


@typed_endpoint
async def deactivate(req: ApiRequest) -> dict[str, Any]:
    await req.runtime.write(deactivate_own_account, req.me)
    await end_browser_sessions(req.runtime, req.me.id)
    return {}


@typed_endpoint
async def update_subscriptions(
    req: ApiRequest,
    *,
    add: Json[list[dict[str, Any]]] = [],  # noqa: B006 (never mutated)
    delete: Json[list[str]] = [],  # noqa: B006 (never mutated)
) -> dict[str, Any]:
    result: dict[str, Any] = await req.runtime.write(update_own_subscriptions, req.me, add, delete)
    return result


@typed_endpoint
async def subscription_status(
    req: ApiRequest, *, user_id: PathOnly[int], stream_id: PathOnly[int]
) -> dict[str, Any]:
    subscribed = await req.runtime.db.read(is_subscribed, req.me, user_id, stream_id)
    return {"is_subscribed": subscribed}
