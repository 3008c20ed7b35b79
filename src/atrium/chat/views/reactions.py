"""POST/DELETE /messages/{id}/reactions and GET /messages/{id}/read_receipts."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.reactions import add_reaction, remove_reaction
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import REQUIRED, Endpoint, Param, invalid_message
from atrium.chat.queries.messages import readable_message
from atrium.chat.queries.read_receipts import read_by
from atrium.chat.queries.realm import load_realm
from atrium.core.db import Conn

_MESSAGE = Param("message_id", path=True, out_of_range=invalid_message)
_EMOJI = (Param("emoji_code"), Param("reaction_type"))


@api(Endpoint((_MESSAGE, Param("emoji_name", default=REQUIRED), *_EMOJI)))
async def add(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(
        add_reaction,
        req.me,
        args["message_id"],
        args["emoji_name"],
        args["emoji_code"],
        args["reaction_type"],
    )
    return {}


@api(Endpoint((_MESSAGE, Param("emoji_name"), *_EMOJI)))
async def remove(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(
        remove_reaction,
        req.me,
        args["message_id"],
        args["emoji_name"],
        args["emoji_code"],
        args["reaction_type"],
    )
    return {}


@api(Endpoint((_MESSAGE,)))
async def read_receipts(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    def read(conn: Conn) -> list[int]:
        message = readable_message(conn, req.me, args["message_id"])
        if message is None:
            raise ChatError("Invalid message(s)")
        if not load_realm(conn, req.me.realm_id).setting("enable_read_receipts"):
            raise ChatError("Read receipts are disabled in this organization.")
        return read_by(conn, req.me.id, message["id"], message["sender_id"])

    return {"user_ids": await req.runtime.db.read(read)}
