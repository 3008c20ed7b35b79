"""POST /messages/flags, POST /messages/flags/narrow, and the mark-as-read shortcuts."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.message_flags import (
    mark_all_as_read,
    mark_stream_as_read,
    mark_topic_as_read,
    update_flags,
    update_flags_for_narrow,
)
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, api
from atrium.chat.narrow import parse_narrow
from atrium.chat.params import REQUIRED, Endpoint, Param, invalid_message
from atrium.chat.queries.messages import parse_anchor


@api(
    Endpoint(
        (
            Param("messages", list[int], REQUIRED, out_of_range=invalid_message),
            Param("op", str, REQUIRED),
            Param("flag", str, REQUIRED),
        )
    )
)
async def update(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(update_flags, req.me, args["op"], args["flag"], args["messages"])
    # Zulip answers with the request's list, unchanged (kept for backwards compatibility).
    return {"messages": args["messages"]}


@api(
    Endpoint(
        (
            Param("anchor", default=REQUIRED),
            Param("include_anchor", bool, True),
            Param("num_before", int, REQUIRED),
            Param("num_after", int, REQUIRED),
            Param("narrow", list[Any], REQUIRED),
            Param("op", str, REQUIRED),
            Param("flag", str, REQUIRED),
        )
    )
)
async def update_for_narrow(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    anchor = parse_anchor(args["anchor"], False)
    num_before, num_after = args["num_before"], args["num_after"]
    if num_before < 0 or num_after < 0:
        raise ChatError("num_before and num_after must be non-negative")
    if num_before > 0 and num_after > 0 and not args["include_anchor"]:
        raise ChatError("The anchor can only be excluded at an end of the range")
    terms = parse_narrow(args["narrow"])
    return await req.runtime.write(
        update_flags_for_narrow,
        req.me,
        terms,
        anchor,
        args["include_anchor"],
        num_before,
        num_after,
        args["op"],
        args["flag"],
    )


@api(Endpoint(()))
async def all_as_read(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(mark_all_as_read, req.me)
    return {}


@api(Endpoint((Param("stream_id", int, REQUIRED),)))
async def stream_as_read(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(mark_stream_as_read, req.me, args["stream_id"])
    return {}


@api(Endpoint((Param("stream_id", int, REQUIRED), Param("topic_name", str, REQUIRED))))
async def topic_as_read(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(mark_topic_as_read, req.me, args["stream_id"], args["topic_name"])
    return {}
