"""POST /typing."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.typing import typing_notice
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest
from atrium.chat.typed_endpoint import Json, typed_endpoint

_KINDS = {"direct": "private", "private": "private", "stream": "stream"}


@typed_endpoint
async def set_typing(
    req: ApiRequest,
    *,
    type: str = "direct",
    op: str,
    to: Json[list[int] | None] = None,
    topic: str | None = None,
) -> dict[str, Any]:
    if op not in ("start", "stop"):
        raise ChatError("Invalid op")
    kind = _KINDS.get(type)
    if kind is None:
        raise ChatError("Invalid type")
    await req.runtime.announce(typing_notice, req.me, op, kind, to, topic)
    return {}
