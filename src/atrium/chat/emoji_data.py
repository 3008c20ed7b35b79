"""The emoji data file `server_emoji_data_url` names: every Unicode emoji code this server
accepts with its names, the canonical name first (Zulip 6.0, feature level 140)."""

from __future__ import annotations

import hashlib
from functools import lru_cache

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from atrium.chat.markdown.emoji import emoji_table

EMOJI_DATA_PATH = "/static/generated/emoji/emoji_api.json"


@lru_cache(maxsize=1)
def emoji_data() -> tuple[bytes, str]:
    """The file's bytes and their entity tag; built once, since the table never changes."""
    table = emoji_table()
    code_to_names: dict[str, list[str]] = {
        code: [name] for code, name in table.codepoint_to_name.items()
    }
    for name, code in table.name_to_codepoint.items():
        names = code_to_names.setdefault(code, [name])
        if name not in names:
            names.append(name)
    body = orjson.dumps({"code_to_names": code_to_names})
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


async def emoji_data_file(request: Request) -> Response:
    """Public like Zulip's static files, and cacheable: a client revalidates with its ETag."""
    body, etag = emoji_data()
    headers = {"ETag": etag, "Cache-Control": "public, max-age=86400"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


def emoji_data_route() -> Route:
    return Route(EMOJI_DATA_PATH, emoji_data_file, methods=["GET", "HEAD"])
