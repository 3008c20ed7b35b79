"""POST /messages, GET /messages, GET /messages/{message_id}, GET /messages/matches_narrow."""

from __future__ import annotations

from typing import Annotated, Any

import orjson

from atrium.chat import outgoing_webhooks
from atrium.chat.actions.messages import (
    SendRequest,
    normalize_content,
    prerender_content,
    send_message,
)
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest
from atrium.chat.narrow import parse_narrow
from atrium.chat.params import invalid_message
from atrium.chat.queries.messages import fetch_window, message_dicts, parse_anchor, readable_message
from atrium.chat.queries.narrow_matches import narrow_matches
from atrium.chat.rendering import render_message
from atrium.chat.typed_endpoint import ApiParamConfig, Json, PathOnly, typed_endpoint


def _recipients(name: str, raw: str) -> Any:
    """`to`: a stream name or id, or a list of user ids or emails; JSON-encoded or plain.

    A number JSON reads as a float (too long for an integer) stays the text it was sent as.
    """
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw
    return raw if isinstance(value, float) else value


@typed_endpoint
async def send(
    req: ApiRequest,
    *,
    type: str,
    to: Annotated[Any, ApiParamConfig(converter=_recipients)],
    content: Annotated[str, ApiParamConfig(nul_checked=True)],
    topic: Annotated[str | None, ApiParamConfig(aliases=("subject",), nul_checked=True)] = None,
    queue_id: str | None = None,
    local_id: str | None = None,
    read_by_sender: Json[bool] | None = None,
) -> dict[str, Any]:
    echo = None
    if queue_id is not None:
        if local_id is None:
            raise ChatError(
                "Missing 'local_id' argument", "REQUEST_VARIABLE_MISSING", var_name="local_id"
            )
        echo = (queue_id, local_id)
    prerendered = await prerender_content(req.runtime.db, req.me, content)
    request = SendRequest(
        type=type,
        to=to,
        content=content,
        topic=topic,
        client=req.client_name,
        echo=echo,
        prerendered=prerendered,
    )
    # Sending only reads and writes the database (its events go out after the commit).
    message_id = await req.runtime.write(send_message, req.me, request, rerunnable=True)
    # Outgoing-webhook bots hear of mentions (which need an "@") and of direct messages.
    if not req.me.is_bot and (type != "stream" or "@" in content):
        outgoing_webhooks.dispatch(req.runtime, message_id)
    return {"id": message_id}


@typed_endpoint
async def get_messages(
    req: ApiRequest,
    *,
    anchor: str | None = None,
    use_first_unread_anchor: Json[bool] = False,
    include_anchor: Json[bool] = True,
    num_before: Json[int],
    num_after: Json[int],
    narrow: Json[list[Any]] = [],  # noqa: B006 (never mutated)
    client_gravatar: Json[bool] = True,
    apply_markdown: Json[bool] = True,
) -> dict[str, Any]:
    parsed_anchor = parse_anchor(anchor, use_first_unread_anchor)
    if num_before < 0 or num_after < 0:
        raise ChatError("num_before and num_after must be non-negative")
    terms = parse_narrow(narrow)
    window = await req.runtime.db.read(
        lambda conn: fetch_window(
            conn,
            req.me,
            terms,
            parsed_anchor,
            num_before,
            num_after,
            include_anchor,
            apply_markdown=apply_markdown,
            client_gravatar=client_gravatar,
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


_MessageId = Annotated[PathOnly[int], ApiParamConfig(out_of_range=invalid_message)]


@typed_endpoint
async def get_message(
    req: ApiRequest, *, message_id: _MessageId, apply_markdown: Json[bool] = True
) -> dict[str, Any]:
    def read(conn: Any) -> dict[str, Any]:
        row = readable_message(conn, req.me, message_id)
        if row is None:
            raise ChatError("Invalid message(s)")
        [message] = message_dicts(
            conn, req.me, [row], apply_markdown=apply_markdown, client_gravatar=True
        )
        return {"message": message, "raw_content": row["content"]}

    return await req.runtime.db.read(read)


@typed_endpoint
async def render(
    req: ApiRequest, *, content: Annotated[str, ApiParamConfig(nul_checked=True)]
) -> dict[str, Any]:
    """POST /messages/render: the same processor, checks and length bound as sending."""
    normalized = normalize_content(content)
    result = await req.runtime.db.read_rendering(render_message, req.me, normalized)
    return {"rendered": result.html}


@typed_endpoint
async def matches_narrow(
    req: ApiRequest, *, msg_ids: Json[list[int]], narrow: Json[list[Any]]
) -> dict[str, Any]:
    terms = parse_narrow(narrow)
    found = await req.runtime.db.read(narrow_matches, req.me, msg_ids, terms)
    return {"messages": found}
