"""/users/me/subscriptions (list, subscribe, unsubscribe, properties) and GET /streams."""

from __future__ import annotations

from typing import Any

import orjson

from atrium.chat.actions.realm_settings import parse_retention
from atrium.chat.actions.streams import StreamOptions, subscribe
from atrium.chat.actions.subscriptions import remove_subscriptions as remove_subscriptions_action
from atrium.chat.actions.subscriptions import (
    update_subscription_properties as update_subscription_properties_action,
)
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries import streams as stream_queries


@api(Endpoint((Param("include_subscribers", bool, False),)))
async def get_subscriptions(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    subscriptions = await req.runtime.db.read(
        stream_queries.subscriptions_of, req.me, args["include_subscribers"]
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


@api(
    Endpoint(
        (
            Param("subscriptions", list[dict[str, str]], REQUIRED),
            Param("principals", list[str] | list[int], None),
            Param("authorization_errors_fatal", bool, True),
            Param("announce", bool, False),
            Param("invite_only", bool, False),
            Param("is_web_public", bool, False),
            Param("history_public_to_subscribers", bool, None),
            Param("stream_post_policy", int, 1),
            Param("message_retention_days", default=None, converter=_retention),
        )
    )
)
async def add_subscriptions(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    if args["stream_post_policy"] not in {1, 2, 3, 4}:
        raise ChatError("Invalid stream_post_policy")
    if args["message_retention_days"] is not None and not req.me.is_owner:
        raise ChatError("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL")
    for spec in args["subscriptions"]:
        if "name" not in spec:
            raise ChatError("subscriptions[0] is missing 'name'")
    options = StreamOptions(
        invite_only=args["invite_only"],
        is_web_public=args["is_web_public"],
        history_public_to_subscribers=args["history_public_to_subscribers"],
        stream_post_policy=args["stream_post_policy"],
        message_retention_days=args["message_retention_days"],
    )
    result = await req.runtime.write(
        subscribe,
        req.me,
        args["subscriptions"],
        args["principals"],
        options,
        args["authorization_errors_fatal"],
    )
    data: dict[str, Any] = {
        "subscribed": result.subscribed,
        "already_subscribed": result.already_subscribed,
    }
    if result.unauthorized:
        data["unauthorized"] = result.unauthorized
    return data


@api(
    Endpoint(
        (
            Param("include_public", bool, True),
            Param("include_web_public", bool, False),
            Param("include_subscribed", bool, True),
            Param("include_all_active", bool, False),
        )
    )
)
async def get_streams(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    if args["include_all_active"] and not req.me.is_admin:
        raise ChatError("User not authorized for this query")
    streams = await req.runtime.db.read(
        lambda conn: stream_queries.visible_streams(
            conn,
            req.me,
            include_public=args["include_public"],
            include_web_public=args["include_web_public"],
            include_subscribed=args["include_subscribed"],
            include_all_active=args["include_all_active"],
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


@api(
    Endpoint(
        (
            Param("subscriptions", list[str], REQUIRED),
            Param("principals", default=None, converter=_principals),
        )
    )
)
async def remove_subscriptions(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    result = await req.runtime.write(
        remove_subscriptions_action, req.me, args["subscriptions"], args["principals"]
    )
    return {"removed": result.removed, "not_removed": result.not_removed}


@api(Endpoint((Param("subscription_data", list[dict[str, Any]], REQUIRED),)))
async def update_subscription_properties(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    changes = args["subscription_data"]
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
