"""`[[chat:stream/topic]]` in wikitext: an interwiki prefix whose URL is this redirect, which
sends the browser to the chat's narrow (a Zulip narrow is a URL fragment, which an interwiki
URL template cannot build). Wiki titles hold underscores for spaces, so both mean a space here.

A public stream is linked by id (as Zulip's own links are); any other by its name, so that the
redirect tells nobody which private streams exist.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response

from atrium.chat.markdown.mentions import encode_stream, hash_util_encode
from atrium.chat.queries.realm import default_realm
from atrium.chat.queries.streams import stream_by_name
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn

PREFIX = "chat"
PATH = "/atrium/chat/"
MAX_LINK_CHARS = 300


def _public_stream_id(conn: Conn, name: str) -> int | None:
    realm = default_realm(conn)
    if realm is None:
        return None
    stream = stream_by_name(conn, realm.id, name)
    if stream is None or stream["invite_only"] or stream["deactivated"]:
        return None
    return int(stream["id"])


def chat_link_redirect(chat: ChatRuntime) -> Callable[[Request], Awaitable[Response]]:
    async def redirect(request: Request) -> Response:
        rest = request.path_params["rest"].replace("_", " ")
        stream, _, topic = rest.partition("/")
        stream, topic = stream.strip(), topic.strip()
        if not stream or len(rest) > MAX_LINK_CHARS:
            return PlainTextResponse("Not Found", 404)
        stream_id = await chat.db.read(_public_stream_id, stream)
        slug = encode_stream(stream_id, stream) if stream_id else hash_util_encode(stream)
        target = f"/#narrow/stream/{slug}"
        if topic:
            target += f"/topic/{hash_util_encode(topic)}"
        return RedirectResponse(target, 302)

    return redirect
