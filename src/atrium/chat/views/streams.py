"""GET and POST /users/me/subscriptions, GET /streams."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.streams import StreamOptions, subscribe
from atrium.chat.actions.users import user_id_by_email
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries import streams as stream_queries
from atrium.core.db import Conn


@api(Endpoint((Param("include_subscribers", bool, False),)))
async def get_subscriptions(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    subscriptions = await req.runtime.db.read(
        stream_queries.subscriptions_of, req.me, args["include_subscribers"]
    )
    return {"subscriptions": subscriptions}


def _retention(name: str, raw: str) -> int | None:
    if raw in {"realm_default"}:
        return None
    if raw in {"unlimited", "forever"}:
        return -1
    try:
        value = int(raw)
    except ValueError:
        raise ChatError(
            f"Bad value for '{name}': {raw}", "REQUEST_VARIABLE_INVALID", var_name=name
        ) from None
    if value <= 0:
        raise ChatError(f"Bad value for '{name}': {raw}", "REQUEST_VARIABLE_INVALID", var_name=name)
    return value


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
    principals = args["principals"]

    def write(conn: Conn) -> Any:
        ids = None
        if principals is not None:
            ids = []
            for principal in principals:
                if isinstance(principal, int):
                    ids.append(principal)
                    continue
                found = user_id_by_email(conn, req.me.realm_id, principal)
                if found is None:
                    raise ChatError("No such user")
                ids.append(found)
        return subscribe(
            conn, req.me, args["subscriptions"], ids, options, args["authorization_errors_fatal"]
        )

    result = await req.runtime.db.write(write)
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
