"""One stream: GET, PATCH and DELETE /streams/{id}, its members, and GET /get_stream_id."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.stream_settings import (
    STREAM_POST_POLICIES,
    UNCHANGED,
    StreamChanges,
    archive_stream,
    update_stream,
)
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, api
from atrium.chat.limits import MAX_STREAM_DESCRIPTION_LENGTH
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries import streams as stream_queries
from atrium.chat.views.streams import _json_or_string
from atrium.core.db import Conn

_STREAM_ID = Param("stream_id", path=True)


@api(Endpoint((_STREAM_ID,)))
async def get_stream(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    def read(conn: Conn) -> dict[str, Any]:
        stream, _sub = stream_queries.stream_for_reading(
            conn, req.me, args["stream_id"], allow_realm_admin=True
        )
        return stream_queries.stream_dict(stream)

    return {"stream": await req.runtime.db.read(read)}


@api(Endpoint((_STREAM_ID,)))
async def get_members(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    def read(conn: Conn) -> list[int]:
        stream, _sub = stream_queries.stream_for_reading(
            conn, req.me, args["stream_id"], allow_realm_admin=True
        )
        return sorted(stream_queries.subscriber_ids(conn, stream["id"]))

    return {"subscribers": await req.runtime.db.read(read)}


@api(Endpoint((Param("stream", default=REQUIRED),)))
async def get_stream_id(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    name: str = args["stream"]

    def read(conn: Conn) -> int:
        stream = stream_queries.stream_by_name(conn, req.me.realm_id, name)
        if stream is not None:
            sub = stream_queries.active_subscription(conn, req.me.id, stream["id"])
            if stream_queries.can_read_stream(req.me, stream, sub is not None):
                return int(stream["id"])
        raise ChatError(f"Invalid stream name '{name}'")

    return {"stream_id": await req.runtime.db.read(read)}


def _post_policy(name: str, raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise ChatError(f"{name} is not an integer") from None
    if value not in STREAM_POST_POLICIES:
        raise ChatError(f"Invalid {name}")
    return value


def _capped_description(name: str, raw: str) -> str:
    """Zulip caps the description while reading parameters, before any permission check."""
    if len(raw) > MAX_STREAM_DESCRIPTION_LENGTH:
        raise ChatError(f"{name} is too long (limit: {MAX_STREAM_DESCRIPTION_LENGTH} characters)")
    return raw


def _string_or_int(name: str, raw: str) -> int | str:
    """Zulip's `check_string_or_int`; the value itself is judged after the owner check."""
    value = _json_or_string(raw)
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ChatError(f"{name} is not a string or integer")
    return value


@api(
    Endpoint(
        (
            _STREAM_ID,
            Param("description", converter=_capped_description),
            Param("new_name"),
            Param("is_private", bool),
            Param("is_web_public", bool),
            Param("history_public_to_subscribers", bool),
            Param("stream_post_policy", default=None, converter=_post_policy),
            Param("is_announcement_only", bool),
            Param("message_retention_days", default=UNCHANGED, converter=_string_or_int),
            # Feature level 185's name; the later name is accepted as well.
            Param(
                "can_remove_subscribers_group_id",
                int,
                aliases=("can_remove_subscribers_group",),
            ),
        )
    )
)
async def update(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    changes = StreamChanges(
        description=args["description"],
        new_name=args["new_name"],
        is_private=args["is_private"],
        is_web_public=args["is_web_public"],
        history_public_to_subscribers=args["history_public_to_subscribers"],
        stream_post_policy=args["stream_post_policy"],
        is_announcement_only=args["is_announcement_only"],
        message_retention_days=args["message_retention_days"],
        can_remove_subscribers_group_id=args["can_remove_subscribers_group_id"],
    )
    enabled = req.runtime.settings.web_public_streams_enabled
    await req.runtime.write(update_stream, req.me, enabled, args["stream_id"], changes)
    return {}


@api(Endpoint((_STREAM_ID,)))
async def delete(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(archive_stream, req.me, args["stream_id"])
    return {}
