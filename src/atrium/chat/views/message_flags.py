"""POST /messages/flags, POST /messages/flags/narrow, and the mark-as-read shortcuts."""

from __future__ import annotations

from typing import Annotated, Any

from atrium.chat.actions.message_flags import (
    mark_all_as_read,
    mark_stream_as_read,
    mark_topic_as_read,
    update_flags,
    update_flags_for_narrow,
)
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest
from atrium.chat.narrow import parse_narrow
from atrium.chat.params import invalid_message
from atrium.chat.queries.messages import parse_anchor
from atrium.chat.typed_endpoint import ApiParamConfig, Json, typed_endpoint


@typed_endpoint
async def update(
    req: ApiRequest,
    *,
    messages: Annotated[Json[list[int]], ApiParamConfig(out_of_range=invalid_message)],
    op: str,
    flag: str,
) -> dict[str, Any]:
    await req.runtime.write(update_flags, req.me, op, flag, messages)
    # Zulip answers with the request's list, unchanged (kept for backwards compatibility).
    return {"messages": messages}


@typed_endpoint
async def update_for_narrow(
    req: ApiRequest,
    *,
    anchor: str,
    include_anchor: Json[bool] = True,
    num_before: Json[int],
    num_after: Json[int],
    narrow: Json[list[Any]],
    op: str,
    flag: str,
) -> dict[str, Any]:
    parsed_anchor = parse_anchor(anchor, False)
    if num_before < 0 or num_after < 0:
        raise ChatError("num_before and num_after must be non-negative")
    if num_before > 0 and num_after > 0 and not include_anchor:
        raise ChatError("The anchor can only be excluded at an end of the range")
    terms = parse_narrow(narrow)
    return await req.runtime.write(
        update_flags_for_narrow,
        req.me,
        terms,
        parsed_anchor,
        include_anchor,
        num_before,
        num_after,
        op,
        flag,
    )


@typed_endpoint
async def all_as_read(req: ApiRequest) -> dict[str, Any]:
    await req.runtime.write(mark_all_as_read, req.me)
    return {}


@typed_endpoint
async def stream_as_read(req: ApiRequest, *, stream_id: Json[int]) -> dict[str, Any]:
    await req.runtime.write(mark_stream_as_read, req.me, stream_id)
    return {}


@typed_endpoint
async def topic_as_read(
    req: ApiRequest, *, stream_id: Json[int], topic_name: str
) -> dict[str, Any]:
    await req.runtime.write(mark_topic_as_read, req.me, stream_id, topic_name)
    return {}
