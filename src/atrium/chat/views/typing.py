"""POST /typing."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.typing import typing_notice
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import REQUIRED, Endpoint, Param

_KINDS = {"direct": "private", "private": "private", "stream": "stream"}


@api(
    Endpoint(
        (
            Param("type", default="direct"),
            Param("op", default=REQUIRED),
            Param("to", list[int] | None, None),
            Param("topic"),
        )
    )
)
async def set_typing(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    if args["op"] not in ("start", "stop"):
        raise ChatError("Invalid op")
    kind = _KINDS.get(args["type"])
    if kind is None:
        raise ChatError("Invalid type")
    await req.runtime.announce(typing_notice, req.me, args["op"], kind, args["to"], args["topic"])
    return {}
