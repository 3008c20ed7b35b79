"""GET/POST /scheduled_messages, PATCH/DELETE /scheduled_messages/{scheduled_message_id}."""

from __future__ import annotations

import time
from typing import Annotated, Any

from atrium.chat.actions.messages import prerender_content
from atrium.chat.actions.scheduled_messages import (
    ScheduleEdit,
    ScheduleRequest,
    create_scheduled_message,
    delete_scheduled_message,
    edit_scheduled_message,
    in_future,
)
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest
from atrium.chat.queries.scheduled_messages import user_scheduled_messages
from atrium.chat.typed_endpoint import ApiParamConfig, Json, PathOnly, typed_endpoint


@typed_endpoint
async def get_scheduled(req: ApiRequest) -> dict[str, Any]:
    rows = await req.runtime.db.read(user_scheduled_messages, req.me)
    return {"scheduled_messages": rows}


@typed_endpoint
async def create(
    req: ApiRequest,
    *,
    type: str,
    to: Json[int | list[int]],
    content: Annotated[str, ApiParamConfig(nul_checked=True)],
    topic: Annotated[str | None, ApiParamConfig(nul_checked=True)] = None,
    scheduled_delivery_timestamp: Annotated[Json[int], ApiParamConfig(wide=True)],
    read_by_sender: Json[bool] | None = None,
) -> dict[str, Any]:
    request = ScheduleRequest(
        type=type,
        to=to,
        content=content,
        topic=topic,
        deliver_at=float(scheduled_delivery_timestamp),
        client=req.client_name,
        prerendered=await prerender_content(req.runtime.db, req.me, content),
    )
    scheduled_id = await req.runtime.write(create_scheduled_message, req.me, request)
    return {"scheduled_message_id": scheduled_id}


@typed_endpoint
async def edit(
    req: ApiRequest,
    *,
    scheduled_message_id: PathOnly[int],
    type: str | None = None,
    to: Json[int | list[int]] | None = None,
    content: Annotated[str | None, ApiParamConfig(nul_checked=True)] = None,
    topic: Annotated[str | None, ApiParamConfig(nul_checked=True)] = None,
    scheduled_delivery_timestamp: Annotated[Json[int] | None, ApiParamConfig(wide=True)] = None,
) -> dict[str, Any]:
    kind = type
    timestamp = scheduled_delivery_timestamp
    if kind is None and to is None and topic is None and content is None and timestamp is None:
        raise ChatError("Nothing to change")
    if kind is not None and to is None:
        raise ChatError("Recipient required when updating type of scheduled message.")
    if kind == "stream" and topic is None:
        raise ChatError("Topic required when updating scheduled message type to stream.")
    if timestamp is not None:
        in_future(float(timestamp), time.time())
    change = ScheduleEdit(
        type=kind,
        to=to,
        content=content,
        topic=topic,
        deliver_at=None if timestamp is None else float(timestamp),
        prerendered=(
            None if content is None else await prerender_content(req.runtime.db, req.me, content)
        ),
    )
    await req.runtime.write(edit_scheduled_message, req.me, scheduled_message_id, change)
    return {}


@typed_endpoint
async def delete(req: ApiRequest, *, scheduled_message_id: PathOnly[int]) -> dict[str, Any]:
    await req.runtime.write(delete_scheduled_message, req.me, scheduled_message_id)
    return {}
