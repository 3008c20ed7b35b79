"""`GET /api/v1/atrium/wiki_titles?prefix=…` (and `/json`): page titles for the compose box's
`[[` completion, for a reader of the wiki only (the caller's own wiki user, whether the chat's
browser client or an API client asks), as the wiki's own `list=prefixsearch` finds them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, ViewSpec
from atrium.chat.typed_endpoint import Json, typed_endpoint
from atrium.core.db import Conn
from atrium.wiki.reads.prefix_search import prefix_matches
from atrium.wiki.runtime import WikiRuntime
from atrium.wiki.titles import NS_MAIN
from atrium.workspace.bridge.people import wiki_user_of
from atrium.workspace.bridge.search import may_read_wiki

MAX_PREFIX_CHARS = 255
MAX_TITLES = 20


def _titles(
    conn: Conn, wiki: WikiRuntime, reader: int | None, prefix: str, limit: int
) -> list[str]:
    if not may_read_wiki(wiki, conn, reader):
        return []
    rows = prefix_matches(conn, wiki.site.parser, prefix, [NS_MAIN], limit)[:limit]
    return [
        wiki.site.parser.prefixed_text(int(r["page_namespace"]), str(r["page_title"])) for r in rows
    ]


def titles_view(wiki: Callable[[], WikiRuntime | None]) -> ViewSpec:
    @typed_endpoint
    async def wiki_titles(req: ApiRequest, *, prefix: str, limit: Json[int] = 8) -> dict[str, Any]:
        if len(prefix) > MAX_PREFIX_CHARS:
            raise ChatError(f"prefix is too long (limit: {MAX_PREFIX_CHARS} characters)")
        if not 1 <= limit <= MAX_TITLES:
            raise ChatError(f"Invalid limit (between 1 and {MAX_TITLES})")
        runtime = wiki()
        if runtime is None:
            raise ChatError("The wiki is not running", "BAD_REQUEST", 503)
        reader = await wiki_user_of(req.runtime, req.me)
        titles = await runtime.db.read(_titles, runtime, reader, prefix, limit)
        return {"titles": titles}

    return wiki_titles
