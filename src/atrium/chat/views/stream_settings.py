"""One stream: GET, PATCH and DELETE /streams/{id}, its members, and GET /get_stream_id."""

from __future__ import annotations

from typing import Annotated, Any

from atrium.chat.actions.stream_settings import (
    STREAM_POST_POLICIES,
    UNCHANGED,
    StreamChanges,
    archive_stream,
    update_stream,
)
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest
from atrium.chat.limits import MAX_STREAM_DESCRIPTION_LENGTH
from atrium.chat.queries import streams as stream_queries
from atrium.chat.typed_endpoint import ApiParamConfig, Json, PathOnly, typed_endpoint
from atrium.chat.views.streams import _json_or_string
from atrium.core.db import Conn


@typed_endpoint
async def get_stream(req: ApiRequest, *, stream_id: PathOnly[int]) -> dict[str, Any]:
    def read(conn: Conn) -> dict[str, Any]:
        stream, _sub = stream_queries.stream_for_reading(
            conn, req.me, stream_id, allow_realm_admin=True
        )
        return stream_queries.stream_dict(stream)

    return {"stream": await req.runtime.db.read(read)}


@typed_endpoint
async def get_members(req: ApiRequest, *, stream_id: PathOnly[int]) -> dict[str, Any]:
    def read(conn: Conn) -> list[int]:
        stream, _sub = stream_queries.stream_for_reading(
            conn, req.me, stream_id, allow_realm_admin=True
        )
        return sorted(stream_queries.subscriber_ids(conn, stream["id"]))

    return {"subscribers": await req.runtime.db.read(read)}


@typed_endpoint
async def get_stream_id(req: ApiRequest, *, stream: str) -> dict[str, Any]:
    name: str = stream

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


@typed_endpoint
async def update(
    req: ApiRequest,
    *,
    stream_id: PathOnly[int],
    description: Annotated[str | None, ApiParamConfig(converter=_capped_description)] = None,
    new_name: str | None = None,
    is_private: Json[bool] | None = None,
    is_web_public: Json[bool] | None = None,
    history_public_to_subscribers: Json[bool] | None = None,
    stream_post_policy: Annotated[int | None, ApiParamConfig(converter=_post_policy)] = None,
    is_announcement_only: Json[bool] | None = None,
    message_retention_days: Annotated[
        int | str, ApiParamConfig(converter=_string_or_int)
    ] = UNCHANGED,
    # Feature level 185's name; the later name is accepted as well.
    can_remove_subscribers_group_id: Annotated[
        Json[int] | None, ApiParamConfig(aliases=("can_remove_subscribers_group",))
    ] = None,
) -> dict[str, Any]:
    changes = StreamChanges(
        description=description,
        new_name=new_name,
        is_private=is_private,
        is_web_public=is_web_public,
        history_public_to_subscribers=history_public_to_subscribers,
        stream_post_policy=stream_post_policy,
        is_announcement_only=is_announcement_only,
        message_retention_days=message_retention_days,
        can_remove_subscribers_group_id=can_remove_subscribers_group_id,
    )
    enabled = req.runtime.settings.web_public_streams_enabled
    await req.runtime.write(update_stream, req.me, enabled, stream_id, changes)
    return {}


@typed_endpoint
async def delete(req: ApiRequest, *, stream_id: PathOnly[int]) -> dict[str, Any]:
    await req.runtime.write(archive_stream, req.me, stream_id)
    return {}
