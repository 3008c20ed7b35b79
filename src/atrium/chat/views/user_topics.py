"""POST /user_topics and the legacy PATCH /users/me/subscriptions/muted_topics (Zulip 7)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.messages import MAX_TOPIC_LENGTH
from atrium.chat.actions.user_topics import set_visibility_policy
from atrium.chat.errors import ChatError
from atrium.chat.events import Outcome
from atrium.chat.http import ApiRequest, api
from atrium.chat.models import User
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.user_topics import INHERIT, MUTED, VISIBILITY_POLICIES
from atrium.core.db import Conn

S = schema.stream.c


def _topic(name: str, raw: str) -> str:
    if len(raw) > MAX_TOPIC_LENGTH:
        raise ChatError(f"{name} is too long (limit: {MAX_TOPIC_LENGTH} characters)")
    return raw


def _visibility_policy(name: str, raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise ChatError(f"{name} is not an integer") from None
    if value not in VISIBILITY_POLICIES:
        raise ChatError(f"Invalid {name}")
    return value


def _op(name: str, raw: str) -> str:
    if raw not in ("add", "remove"):
        raise ChatError(f"Invalid {name}")
    return raw


def _readable_by_name(conn: Conn, user: User, name: str) -> Any:
    """Zulip's `access_stream_by_name`."""
    stream = stream_queries.stream_by_name(conn, user.realm_id, name)
    if stream is not None:
        sub = stream_queries.active_subscription(conn, user.id, stream["id"])
        if stream_queries.can_read_stream(user, stream, sub is not None):
            return stream
    raise ChatError(f"Invalid stream name '{name}'")


def _any_stream(conn: Conn, user: User, error: str, stream_id: int | None, name: str | None) -> Any:
    """Zulip's `access_stream_to_remove_visibility_policy_by_*`: any stream of the realm, even
    one archived since, so that a policy can always be removed."""
    where = (
        S.id == stream_id
        if name is None
        else sa.func.lower(S.name) == sa.func.lower(sa.literal(name))
    )
    stream = conn.one(sa.select(schema.stream).where(S.realm_id == user.realm_id, where))
    if stream is None:
        raise ChatError(error)
    return stream


@api(
    Endpoint(
        (
            Param("stream_id", int, REQUIRED),
            Param("topic", default=REQUIRED, converter=_topic),
            Param("visibility_policy", default=REQUIRED, converter=_visibility_policy),
        )
    )
)
async def update_user_topic(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    policy: int = args["visibility_policy"]

    def write(conn: Conn) -> Outcome[None]:
        if policy == INHERIT:
            stream = _any_stream(conn, req.me, "Invalid stream ID", args["stream_id"], None)
        else:
            stream, _sub = stream_queries.stream_for_reading(
                conn, req.me, args["stream_id"], allow_realm_admin=False
            )
        return set_visibility_policy(conn, req.me, stream, args["topic"], policy)

    await req.runtime.write(write)
    return {}


@api(
    Endpoint(
        (
            Param("stream_id", int, None),
            Param("stream", str, None),
            Param("topic", default=REQUIRED, converter=_topic),
            Param("op", default=REQUIRED, converter=_op),
        )
    )
)
async def update_muted_topic(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    stream_id, name = args["stream_id"], args["stream"]
    if stream_id is None and name is None:
        raise ChatError("Missing 'stream_id' argument")
    if stream_id is not None and name is not None:
        raise ChatError(
            "Unsupported parameter combination: stream_id, stream",
            "INCOMPATIBLE_PARAMETERS",
            parameters="stream_id, stream",
        )

    def write(conn: Conn) -> Outcome[None]:
        if args["op"] == "add":
            if name is not None:
                stream = _readable_by_name(conn, req.me, name)
            else:
                stream, _sub = stream_queries.stream_for_reading(
                    conn, req.me, stream_id, allow_realm_admin=False
                )
            return set_visibility_policy(conn, req.me, stream, args["topic"], MUTED)
        stream = _any_stream(conn, req.me, "Topic is not muted", stream_id, name)
        return set_visibility_policy(conn, req.me, stream, args["topic"], INHERIT)

    await req.runtime.write(write)
    return {}
