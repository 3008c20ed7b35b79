"""PATCH /messages/{message_id} (edit, move, resolve), DELETE /messages/{message_id} and
GET /messages/{message_id}/history."""

from __future__ import annotations

from typing import Annotated, Any

from atrium.chat.actions.message_edit import EditRequest, delete_message, update_message
from atrium.chat.actions.messages import normalize_content
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest
from atrium.chat.params import invalid_message
from atrium.chat.queries.message_history import message_history
from atrium.chat.rendering import prerender_for_write
from atrium.chat.typed_endpoint import ApiParamConfig, Json, PathOnly, typed_endpoint

_MessageId = Annotated[PathOnly[int], ApiParamConfig(out_of_range=invalid_message)]


@typed_endpoint
async def update(
    req: ApiRequest,
    *,
    message_id: _MessageId,
    topic: Annotated[str | None, ApiParamConfig(aliases=("subject",), nul_checked=True)] = None,
    propagate_mode: str = "change_one",
    send_notification_to_old_thread: Json[bool] = False,
    send_notification_to_new_thread: Json[bool] = True,
    content: Annotated[str | None, ApiParamConfig(nul_checked=True)] = None,
    stream_id: Json[int] | None = None,
) -> dict[str, Any]:
    prerendered = None
    if content is not None and content.rstrip():
        try:
            normalized = normalize_content(content)
        except ChatError:  # refused by the write, in the order of its checks
            pass
        else:
            prerendered = await prerender_for_write(req.runtime.db, req.me, normalized)
    request = EditRequest(
        content=content,
        topic=topic,
        stream_id=stream_id,
        propagate_mode=propagate_mode,
        send_notification_to_old_thread=send_notification_to_old_thread,
        send_notification_to_new_thread=send_notification_to_new_thread,
        prerendered=prerendered,
    )
    await req.runtime.write(update_message, req.me, message_id, request)
    return {}


@typed_endpoint
async def delete(req: ApiRequest, *, message_id: _MessageId) -> dict[str, Any]:
    await req.runtime.write(delete_message, req.me, message_id)
    return {}


@typed_endpoint
async def history(req: ApiRequest, *, message_id: _MessageId) -> dict[str, Any]:
    snapshots = await req.runtime.db.read(message_history, req.me, message_id)
    return {"message_history": snapshots}
