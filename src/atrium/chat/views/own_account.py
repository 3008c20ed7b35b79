"""DELETE /users/me, PATCH /users/me/subscriptions, GET /users/{id}/subscriptions/{stream_id}."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.own_account import deactivate_own_account, update_own_subscriptions
from atrium.chat.auth import end_browser_sessions
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import Endpoint, Param
from atrium.chat.queries.subscription_status import is_subscribed


@api(Endpoint())
async def deactivate(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(deactivate_own_account, req.me)
    await end_browser_sessions(req.runtime, req.me.id)
    return {}


@api(Endpoint((Param("add", list[dict[str, Any]], []), Param("delete", list[str], []))))
async def update_subscriptions(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = await req.runtime.write(
        update_own_subscriptions, req.me, args["add"], args["delete"]
    )
    return result


@api(Endpoint((Param("user_id", path=True), Param("stream_id", path=True))))
async def subscription_status(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    subscribed = await req.runtime.db.read(
        is_subscribed, req.me, args["user_id"], args["stream_id"]
    )
    return {"is_subscribed": subscribed}
