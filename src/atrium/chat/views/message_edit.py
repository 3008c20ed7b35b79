"""PATCH /messages/{message_id} (edit, move, resolve), DELETE /messages/{message_id} and
GET /messages/{message_id}/history."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.message_edit import EditRequest, delete_message, update_message
from atrium.chat.actions.messages import normalize_content
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import Endpoint, Param, invalid_message
from atrium.chat.queries.message_history import message_history
from atrium.chat.rendering import prerender_for_write


@api(
    Endpoint(
        (
            Param("message_id", int, path=True, out_of_range=invalid_message),
            Param("topic", str, None, aliases=("subject",), nul_checked=True),
            Param("propagate_mode", str, "change_one"),
            Param("send_notification_to_old_thread", bool, False),
            Param("send_notification_to_new_thread", bool, True),
            Param("content", str, None, nul_checked=True),
            Param("stream_id", int, None),
        )
    )
)
async def update(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    prerendered = None
    if args["content"] is not None and args["content"].rstrip():
        try:
            content = normalize_content(args["content"])
        except ChatError:  # refused by the write, in the order of its checks
            pass
        else:
            prerendered = await prerender_for_write(req.runtime.db, req.me, content)
    request = EditRequest(
        content=args["content"],
        topic=args["topic"],
        stream_id=args["stream_id"],
        propagate_mode=args["propagate_mode"],
        send_notification_to_old_thread=args["send_notification_to_old_thread"],
        send_notification_to_new_thread=args["send_notification_to_new_thread"],
        prerendered=prerendered,
    )
    await req.runtime.write(update_message, req.me, args["message_id"], request)
    return {}


@api(Endpoint((Param("message_id", int, path=True, out_of_range=invalid_message),)))
async def delete(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(delete_message, req.me, args["message_id"])
    return {}


@api(Endpoint((Param("message_id", int, path=True, out_of_range=invalid_message),)))
async def history(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    snapshots = await req.runtime.db.read(message_history, req.me, args["message_id"])
    return {"message_history": snapshots}
