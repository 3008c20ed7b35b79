"""POST/DELETE /messages/{id}/reactions and GET /messages/{id}/read_receipts."""

from __future__ import annotations

from typing import Annotated, Any

from atrium.chat.actions.reactions import add_reaction, remove_reaction
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest
from atrium.chat.params import invalid_message
from atrium.chat.queries.messages import readable_message
from atrium.chat.queries.read_receipts import read_by
from atrium.chat.queries.realm import load_realm
from atrium.chat.typed_endpoint import ApiParamConfig, PathOnly, typed_endpoint
from atrium.core.db import Conn

_MessageId = Annotated[PathOnly[int], ApiParamConfig(out_of_range=invalid_message)]


@typed_endpoint
async def add(
    req: ApiRequest,
    *,
    message_id: _MessageId,
    emoji_name: str,
    emoji_code: str | None = None,
    reaction_type: str | None = None,
) -> dict[str, Any]:
    await req.runtime.write(add_reaction, req.me, message_id, emoji_name, emoji_code, reaction_type)
    return {}


@typed_endpoint
async def remove(
    req: ApiRequest,
    *,
    message_id: _MessageId,
    emoji_name: str | None = None,
    emoji_code: str | None = None,
    reaction_type: str | None = None,
) -> dict[str, Any]:
    await req.runtime.write(
        remove_reaction, req.me, message_id, emoji_name, emoji_code, reaction_type
    )
    return {}


@typed_endpoint
async def read_receipts(req: ApiRequest, *, message_id: _MessageId) -> dict[str, Any]:
    def read(conn: Conn) -> list[int]:
        message = readable_message(conn, req.me, message_id)
        if message is None:
            raise ChatError("Invalid message(s)")
        if not load_realm(conn, req.me.realm_id).setting("enable_read_receipts"):
            raise ChatError("Read receipts are disabled in this organization.")
        return read_by(conn, req.me.id, message["id"], message["sender_id"])

    return {"user_ids": await req.runtime.db.read(read)}
