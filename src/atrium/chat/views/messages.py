"""POST /messages, GET /messages, GET /messages/{message_id}, GET /messages/matches_narrow."""

from __future__ import annotations

from typing import Any

import orjson

from atrium.chat import outgoing_webhooks
from atrium.chat.actions.messages import SendRequest, normalize_content, send_message
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, api
from atrium.chat.narrow import parse_narrow
from atrium.chat.params import REQUIRED, Endpoint, Param, invalid_message
from atrium.chat.queries.messages import fetch_window, message_dicts, parse_anchor, readable_message
from atrium.chat.queries.narrow_matches import narrow_matches
from atrium.chat.rendering import prerender_for_write, render_message


def _recipients(name: str, raw: str) -> Any:
    """`to`: a stream name or id, or a list of user ids or emails; JSON-encoded or plain.

    A number JSON reads as a float (too long for an integer) stays the text it was sent as.
    """
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw
    return raw if isinstance(value, float) else value


@api(
    Endpoint(
        (
            Param("type", default=REQUIRED),
            Param("to", default=REQUIRED, converter=_recipients),
            Param("content", default=REQUIRED, nul_checked=True),
            Param("topic", str, None, aliases=("subject",), nul_checked=True),
            Param("queue_id"),
            Param("local_id"),
            Param("read_by_sender", bool),
        )
    )
)
async def send(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    if args["queue_id"] is not None and args["local_id"] is None:
        raise ChatError(
            "Missing 'local_id' argument", "REQUEST_VARIABLE_MISSING", var_name="local_id"
        )
    try:
        content = normalize_content(args["content"])
    except ChatError:  # refused by the write, in the order of its checks
        prerendered = None
    else:
        prerendered = await prerender_for_write(req.runtime.db, req.me, content)
    request = SendRequest(
        type=args["type"],
        to=args["to"],
        content=args["content"],
        topic=args["topic"],
        client=req.client_name,
        echo=(args["queue_id"], args["local_id"]) if args["queue_id"] is not None else None,
        prerendered=prerendered,
    )
    # Sending only reads and writes the database (its events go out after the commit).
    message_id = await req.runtime.write(send_message, req.me, request, rerunnable=True)
    # Outgoing-webhook bots hear of mentions (which need an "@") and of direct messages.
    if not req.me.is_bot and (args["type"] != "stream" or "@" in args["content"]):
        outgoing_webhooks.dispatch(req.runtime, message_id)
    return {"id": message_id}


@api(
    Endpoint(
        (
            Param("anchor"),
            Param("use_first_unread_anchor", bool, False),
            Param("include_anchor", bool, True),
            Param("num_before", int, REQUIRED),
            Param("num_after", int, REQUIRED),
            Param("narrow", list[Any], []),
            Param("client_gravatar", bool, True),
            Param("apply_markdown", bool, True),
        )
    )
)
async def get_messages(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    anchor = parse_anchor(args["anchor"], args["use_first_unread_anchor"])
    if args["num_before"] < 0 or args["num_after"] < 0:
        raise ChatError("num_before and num_after must be non-negative")
    terms = parse_narrow(args["narrow"])
    window = await req.runtime.db.read(
        lambda conn: fetch_window(
            conn,
            req.me,
            terms,
            anchor,
            args["num_before"],
            args["num_after"],
            args["include_anchor"],
            apply_markdown=args["apply_markdown"],
            client_gravatar=args["client_gravatar"],
        )
    )
    return {
        "messages": window.messages,
        "found_anchor": window.found_anchor,
        "found_oldest": window.found_oldest,
        "found_newest": window.found_newest,
        "history_limited": window.history_limited,
        "anchor": window.anchor,
    }


@api(
    Endpoint(
        (
            Param("message_id", int, path=True, out_of_range=invalid_message),
            Param("apply_markdown", bool, True),
        )
    )
)
async def get_message(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    def read(conn: Any) -> dict[str, Any]:
        row = readable_message(conn, req.me, args["message_id"])
        if row is None:
            raise ChatError("Invalid message(s)")
        [message] = message_dicts(
            conn, req.me, [row], apply_markdown=args["apply_markdown"], client_gravatar=True
        )
        return {"message": message, "raw_content": row["content"]}

    return await req.runtime.db.read(read)


@api(Endpoint((Param("content", default=REQUIRED, nul_checked=True),)))
async def render(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    """POST /messages/render: the same processor, checks and length bound as sending."""
    content = normalize_content(args["content"])
    result = await req.runtime.db.read_rendering(render_message, req.me, content)
    return {"rendered": result.html}


@api(Endpoint((Param("msg_ids", list[int], REQUIRED), Param("narrow", list[Any], REQUIRED))))
async def matches_narrow(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    terms = parse_narrow(args["narrow"])
    found = await req.runtime.db.read(narrow_matches, req.me, args["msg_ids"], terms)
    return {"messages": found}
