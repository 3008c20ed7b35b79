"""/users/me/subscriptions (list, subscribe, unsubscribe, properties) and GET /streams."""

from __future__ import annotations

from typing import Annotated, Any

import orjson

from atrium.chat.actions.realm_settings import parse_retention
from atrium.chat.actions.streams import StreamOptions, subscribe
from atrium.chat.actions.subscriptions import remove_subscriptions as remove_subscriptions_action
from atrium.chat.actions.subscriptions import (
    update_subscription_properties as update_subscription_properties_action,
)
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest
from atrium.chat.queries import streams as stream_queries
from atrium.chat.typed_endpoint import ApiParamConfig, Json, typed_endpoint


@typed_endpoint
async def get_subscriptions(
    req: ApiRequest, *, include_subscribers: Json[bool] = False
) -> dict[str, Any]:
    subscriptions = await req.runtime.db.read(
        stream_queries.subscriptions_of, req.me, include_subscribers
    )
    return {"subscriptions": subscriptions}


def _json_or_string(raw: str) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw


def _retention(name: str, raw: str) -> int | None:
    """An integer number of days, `realm_default` (None) or `unlimited` (-1), as Zulip."""
    value = _json_or_string(raw)
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ChatError(f"{name} is not a string or integer")
    return parse_retention(name, value, {"unlimited": -1, "realm_default": None})


@typed_endpoint
async def add_subscriptions(
    req: ApiRequest,
    *,
    subscriptions: Json[list[dict[str, str]]],
    principals: Json[list[str] | list[int]] | None = None,
    authorization_errors_fatal: Json[bool] = True,
    announce: Json[bool] = False,
    invite_only: Json[bool] = False,
    is_web_public: Json[bool] = False,
    history_public_to_subscribers: Json[bool] | None = None,
    stream_post_policy: Json[int] = 1,
    message_retention_days: Annotated[int | None, ApiParamConfig(converter=_retention)] = None,
) -> dict[str, Any]:
    if stream_post_policy not in {1, 2, 3, 4}:
        raise ChatError("Invalid stream_post_policy")
    if message_retention_days is not None and not req.me.is_owner:
        raise ChatError("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL")
    for spec in subscriptions:
        if "name" not in spec:
            raise ChatError("subscriptions[0] is missing 'name'")
    options = StreamOptions(
        invite_only=invite_only,
        is_web_public=is_web_public,
        history_public_to_subscribers=history_public_to_subscribers,
        stream_post_policy=stream_post_policy,
        message_retention_days=message_retention_days,
    )
    result = await req.runtime.write(
        subscribe,
        req.me,
        subscriptions,
        principals,
        options,
        authorization_errors_fatal,
    )
    data: dict[str, Any] = {
        "subscribed": result.subscribed,
        "already_subscribed": result.already_subscribed,
    }
    if result.unauthorized:
        data["unauthorized"] = result.unauthorized
    return data


@typed_endpoint
async def get_streams(
    req: ApiRequest,
    *,
    include_public: Json[bool] = True,
    include_web_public: Json[bool] = False,
    include_subscribed: Json[bool] = True,
    include_all_active: Json[bool] = False,
) -> dict[str, Any]:
    if include_all_active and not req.me.is_admin:
        raise ChatError("User not authorized for this query")
    streams = await req.runtime.db.read(
        lambda conn: stream_queries.visible_streams(
            conn,
            req.me,
            include_public=include_public,
            include_web_public=include_web_public,
            include_subscribed=include_subscribed,
            include_all_active=include_all_active,
        )
    )
    return {"streams": streams}


def _principals(name: str, raw: str) -> list[int] | list[str]:
    value = _json_or_string(raw)
    if isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise ChatError(f"{name} is not a list of strings or integers")


@typed_endpoint
async def remove_subscriptions(
    req: ApiRequest,
    *,
    subscriptions: Json[list[str]],
    principals: Annotated[
        list[int] | list[str] | None, ApiParamConfig(converter=_principals)
    ] = None,
) -> dict[str, Any]:
    result = await req.runtime.write(remove_subscriptions_action, req.me, subscriptions, principals)
    return {"removed": result.removed, "not_removed": result.not_removed}


@typed_endpoint
async def update_subscription_properties(
    req: ApiRequest, *, subscription_data: Json[list[dict[str, Any]]]
) -> dict[str, Any]:
    changes = subscription_data
    for index, change in enumerate(changes):
        for key in ("stream_id", "property", "value"):
            if key not in change:
                raise ChatError(f"subscription_data[{index}] is missing '{key}'")
        stream_id = change["stream_id"]
        if isinstance(stream_id, bool) or not isinstance(stream_id, int):
            raise ChatError(f"subscription_data[{index}]['stream_id'] is not an integer")
        if not isinstance(change["property"], str):
            raise ChatError(f"subscription_data[{index}]['property'] is not a string")
    await req.runtime.write(update_subscription_properties_action, req.me, changes)
    return {}
