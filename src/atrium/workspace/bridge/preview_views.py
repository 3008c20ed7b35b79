"""`GET /api/v1/atrium/wiki_preview?title=…` (and `/json`): the card the chat shows under a
message with one wiki link: the page's title, its first paragraph and its last edit, for a
reader of the wiki only (the caller's own wiki user, whether the chat's browser client or an
API client asks). The page renders in a rendering thread, as a page view does."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, ViewSpec
from atrium.chat.typed_endpoint import typed_endpoint
from atrium.core.db import Conn
from atrium.wiki.reads import parsing
from atrium.wiki.reads.article import view_page
from atrium.wiki.runtime import WikiRuntime
from atrium.wiki.timestamps import formatted
from atrium.wiki.web import links
from atrium.workspace.bridge.people import wiki_user_of
from atrium.workspace.bridge.search import may_read_wiki

MAX_TITLE_CHARS = 300
EXTRACT_CHARS = 300
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
_TAG = re.compile(r"<[^>]*>")


def first_paragraph(rendered_html: str) -> str:
    """The text of the page's first paragraph that holds any, shortened."""
    for match in _PARAGRAPH.finditer(rendered_html):
        text = " ".join(html.unescape(_TAG.sub("", match.group(1))).split())
        if text:
            return text if len(text) <= EXTRACT_CHARS else text[: EXTRACT_CHARS - 1] + "…"
    return ""


def _preview(conn: Conn, wiki: WikiRuntime, reader: int | None, raw: str) -> dict[str, Any]:
    if not may_read_wiki(wiki, conn, reader):
        raise ChatError("You may not read this wiki", "UNAUTHORIZED", 403)
    site = wiki.site
    title = site.parser.parse_or_none(raw)
    if title is None or title.ns < 0:
        raise ChatError("Invalid title")
    view = view_page(conn, site, title)
    if not view.exists or view.rendered is None:
        raise ChatError("No such page")
    rev = parsing.revision(conn, view.rev_id)
    return {
        "title": links.prefixed_text(site, view.title),
        "url": links.page_href(site, view.title),
        "extract": first_paragraph(view.rendered.html),
        "last_edit": {
            # Empty when the author is hidden (revision deletion).
            "user": rev.public_user if rev is not None else "",
            "timestamp": formatted(rev.timestamp) if rev is not None else "",
        },
    }


def preview_view(wiki: Callable[[], WikiRuntime | None]) -> ViewSpec:
    @typed_endpoint
    async def wiki_preview(req: ApiRequest, *, title: str) -> dict[str, Any]:
        if len(title) > MAX_TITLE_CHARS:
            raise ChatError(f"title is too long (limit: {MAX_TITLE_CHARS} characters)")
        runtime = wiki()
        if runtime is None:
            raise ChatError("The wiki is not running", "BAD_REQUEST", 503)
        reader = await wiki_user_of(req.runtime, req.me)
        preview = await runtime.db.read_rendering(_preview, runtime, reader, title)
        return {"page": preview}

    return wiki_preview
