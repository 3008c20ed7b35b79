"""GET/POST /scheduled_messages, PATCH/DELETE /scheduled_messages/{scheduled_message_id}."""

from __future__ import annotations

import time
from typing import Any

from atrium.chat.actions.scheduled_messages import (
    ScheduleEdit,
    ScheduleRequest,
    create_scheduled_message,
    delete_scheduled_message,
    edit_scheduled_message,
    in_future,
)
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries.scheduled_messages import user_scheduled_messages


@api(Endpoint(()))
async def get_scheduled(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    rows = await req.runtime.db.read(user_scheduled_messages, req.me)
    return {"scheduled_messages": rows}


@api(
    Endpoint(
        (
            Param("type", default=REQUIRED),
            Param("to", int | list[int], REQUIRED),
            Param("content", default=REQUIRED, nul_checked=True),
            Param("topic", str, None, nul_checked=True),
            Param("scheduled_delivery_timestamp", int, REQUIRED, wide=True),
            Param("read_by_sender", bool),
        )
    )
)
async def create(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    request = ScheduleRequest(
        type=args["type"],
        to=args["to"],
        content=args["content"],
        topic=args["topic"],
        deliver_at=float(args["scheduled_delivery_timestamp"]),
        client=req.client_name,
    )
    scheduled_id = await req.runtime.write(create_scheduled_message, req.me, request)
    return {"scheduled_message_id": scheduled_id}


@api(
    Endpoint(
        (
            Param("scheduled_message_id", int, path=True),
            Param("type", str, None),
            Param("to", int | list[int], None),
            Param("content", str, None, nul_checked=True),
            Param("topic", str, None, nul_checked=True),
            Param("scheduled_delivery_timestamp", int, None, wide=True),
        )
    )
)
async def edit(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    kind, to, topic = args["type"], args["to"], args["topic"]
    timestamp = args["scheduled_delivery_timestamp"]
    if (
        kind is None
        and to is None
        and topic is None
        and args["content"] is None
        and timestamp is None
    ):
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
        content=args["content"],
        topic=topic,
        deliver_at=None if timestamp is None else float(timestamp),
    )
    await req.runtime.write(edit_scheduled_message, req.me, args["scheduled_message_id"], change)
    return {}


@api(Endpoint((Param("scheduled_message_id", int, path=True),)))
async def delete(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(delete_scheduled_message, req.me, args["scheduled_message_id"])
    return {}
