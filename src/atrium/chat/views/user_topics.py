"""POST /user_topics and the legacy PATCH /users/me/subscriptions/muted_topics (Zulip 7)."""

from __future__ import annotations

from typing import Annotated, Any

from atrium.chat.actions import user_topics as topic_actions
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest
from atrium.chat.limits import MAX_TOPIC_LENGTH
from atrium.chat.queries.user_topics import VISIBILITY_POLICIES
from atrium.chat.typed_endpoint import ApiParamConfig, Json, typed_endpoint


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


@typed_endpoint
async def update_user_topic(
    req: ApiRequest,
    *,
    stream_id: Json[int],
    topic: Annotated[str, ApiParamConfig(converter=_topic)],
    visibility_policy: Annotated[int, ApiParamConfig(converter=_visibility_policy)],
) -> dict[str, Any]:
    await req.runtime.write(
        topic_actions.update_user_topic,
        req.me,
        stream_id,
        topic,
        visibility_policy,
    )
    return {}


@typed_endpoint
async def update_muted_topic(
    req: ApiRequest,
    *,
    stream_id: Json[int] | None = None,
    stream: str | None = None,
    topic: Annotated[str, ApiParamConfig(converter=_topic)],
    op: Annotated[str, ApiParamConfig(converter=_op)],
) -> dict[str, Any]:
    name = stream
    if stream_id is None and name is None:
        raise ChatError("Missing 'stream_id' argument")
    if stream_id is not None and name is not None:
        raise ChatError(
            "Unsupported parameter combination: stream_id, stream",
            "INCOMPATIBLE_PARAMETERS",
            parameters="stream_id, stream",
        )

    await req.runtime.write(
        topic_actions.update_muted_topic,
        req.me,
        stream_id,
        name,
        topic,
        op == "add",
    )
    return {}
