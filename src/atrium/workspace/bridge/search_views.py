"""The one search, served to both clients: `GET /api/v1/atrium/search` (and its `/json` twin for
the chat's browser client) answers messages and pages in one list, in Zulip's envelope; the
wiki's `Special:Search` gets the messages through the function `chat_search_for_wiki` builds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, ViewSpec
from atrium.chat.runtime import ChatRuntime
from atrium.chat.typed_endpoint import Json, typed_endpoint
from atrium.wiki.runtime import WikiRuntime
from atrium.wiki.web.neighbours import ChatMessageHit, ChatSearch
from atrium.workspace.bridge.people import chat_user_of, wiki_user_of
from atrium.workspace.bridge.query import MAX_QUERY_CHARS, split_query
from atrium.workspace.bridge.search import MAX_RESULTS, search_messages, search_pages

DEFAULT_RESULTS = 20


def search_view(wiki: Callable[[], WikiRuntime | None]) -> ViewSpec:
    @typed_endpoint
    async def unified_search(
        req: ApiRequest, *, q: str, limit: Json[int] = DEFAULT_RESULTS
    ) -> dict[str, Any]:
        if len(q) > MAX_QUERY_CHARS:
            raise ChatError(f"q is too long (limit: {MAX_QUERY_CHARS} characters)")
        if not 1 <= limit <= MAX_RESULTS:
            raise ChatError(f"Invalid limit (between 1 and {MAX_RESULTS})")
        runtime = wiki()
        if runtime is None:
            raise ChatError("The wiki is not running", "BAD_REQUEST", 503)
        split = split_query(runtime.site, q)
        # The caller reads the wiki as their own wiki user, however they signed in to the chat.
        reader = await wiki_user_of(req.runtime, req.me)
        messages = await search_messages(req.runtime, req.me, split, limit)
        pages = await search_pages(runtime, reader, split, limit)
        return {"results": [hit.as_dict() for hit in (*pages, *messages)]}

    return unified_search


def chat_search_for_wiki(chat: ChatRuntime, wiki: Callable[[], WikiRuntime | None]) -> ChatSearch:
    """What the wiki's search page shows of the chat: the messages the viewer's chat user may
    read, none for a viewer who is no member."""

    async def search(wiki_user_id: int | None, query: str, limit: int) -> list[ChatMessageHit]:
        runtime = wiki()
        user = await chat_user_of(chat, wiki_user_id)
        if runtime is None or user is None or len(query) > MAX_QUERY_CHARS:
            return []
        split = split_query(runtime.site, query)
        try:
            hits = await search_messages(chat, user, split, min(limit, MAX_RESULTS))
        except ChatError:
            return []  # a narrow the chat refuses (an unknown stream): no messages
        return [ChatMessageHit(h.title, h.href, h.sender, h.snippet_text) for h in hits]

    return search
