"""The workspace's one search: messages the searcher may read and pages they may read, in one
list. Messages come from the chat's own narrow search (so a private stream's messages reach only
its readers, by the same checks as `GET /messages`), pages from the wiki's search index."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from atrium.chat import search as chat_search
from atrium.chat.markdown.mentions import stream_narrow_url
from atrium.chat.models import User
from atrium.chat.narrow import parse_narrow
from atrium.chat.queries.messages import message_dicts, window_rows
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn
from atrium.wiki import search as wiki_search
from atrium.wiki.accounts.audience import anonymous_rights
from atrium.wiki.reads import revisions as revision_reads
from atrium.wiki.reads.prefix_search import prefix_matches
from atrium.wiki.reads.users import account_by_id
from atrium.wiki.runtime import WikiRuntime
from atrium.wiki.titles import Title
from atrium.wiki.web import links
from atrium.workspace.bridge.query import SplitQuery

MAX_RESULTS = 50
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class Hit:
    """One result: `snippet_html` is markup our own renderers made (a message's sanitised HTML
    with Zulip's highlight spans, or the wiki's escaped snippet with its `searchmatch` spans)."""

    kind: str  # "message" or "page"
    title: str  # the page's title, or "stream > topic" / "Direct message"
    href: str
    snippet_html: str
    sender: str = ""
    id: int = 0

    @property
    def snippet_text(self) -> str:
        return html.unescape(_TAG.sub("", self.snippet_html)).strip()

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "type": self.kind,
            "title": self.title,
            "url": self.href,
            "snippet": self.snippet_html,
        }
        if self.kind == "message":
            found["id"] = self.id
            found["sender_full_name"] = self.sender
        return found


def _message_hits(conn: Conn, user: User, split: SplitQuery, limit: int) -> list[Hit]:
    terms = parse_narrow(split.narrow)
    window = window_rows(conn, user, terms, "newest", limit, 0, True)
    messages = message_dicts(conn, user, window.rows, apply_markdown=True, client_gravatar=True)
    words = [
        w for t in terms if t.operator == "search" for w in chat_search.search_words(str(t.operand))
    ]
    for message in messages:
        message["match_content"] = chat_search.highlight_html(message["content"], words)
    hits = []
    for message in reversed(messages):
        if message["type"] == "stream":
            title = f"{message['display_recipient']} > {message['subject']}"
            href = (
                stream_narrow_url(
                    message["stream_id"], message["display_recipient"], message["subject"]
                )
                + f"/near/{message['id']}"
            )
        else:
            title = "Direct message"
            href = f"/#narrow/id/{message['id']}"
        hits.append(
            Hit(
                "message",
                title,
                href,
                str(message.get("match_content") or message["content"]),
                sender=str(message["sender_full_name"]),
                id=int(message["id"]),
            )
        )
    return hits


async def search_messages(
    chat: ChatRuntime, user: User, split: SplitQuery, limit: int
) -> list[Hit]:
    """The newest messages matching the query that `user` may read (the chat's narrow rules)."""
    if not split.searches_messages:
        return []
    return await chat.db.read(_message_hits, user, split, limit)


def may_read_wiki(wiki: WikiRuntime, conn: Conn, wiki_user_id: int | None) -> bool:
    """Whether this wiki user (None: an anonymous reader) may read the wiki's pages."""
    if wiki_user_id is not None:
        account = account_by_id(conn, wiki_user_id)
        if account is not None:
            return account.allowed("read")
    return "read" in anonymous_rights(wiki.site.audience)


def _page_hits(
    conn: Conn, wiki: WikiRuntime, reader: int | None, split: SplitQuery, limit: int
) -> list[Hit]:
    if not may_read_wiki(wiki, conn, reader):
        return []
    site = wiki.site
    rows: list[Any]
    patterns: list[str] = []
    if split.prefix is not None:
        rows = prefix_matches(conn, site.parser, split.prefix, split.namespaces, limit)[:limit]
    else:
        hits = wiki_search.search(
            conn, split.page_text, split.namespaces, titles_only=False, limit=limit, offset=0,
            count=False,
        )  # fmt: skip
        rows = hits.rows
        patterns = wiki_search.parse_query(split.page_text).highlight
    found = []
    for row in rows:
        title = Title(int(row["page_namespace"]), str(row["page_title"]))
        latest = revision_reads.latest_text(conn, int(row["page_id"]))
        text = str(latest["old_text"]) if latest is not None else ""
        found.append(
            Hit(
                "page",
                links.prefixed_text(site, title),
                links.page_href(site, title),
                wiki_search.highlight(text, patterns),
            )
        )
    return found


async def search_pages(
    wiki: WikiRuntime, reader: int | None, split: SplitQuery, limit: int
) -> list[Hit]:
    """Pages matching the query, if the reader (a wiki user id, None: anonymous) may read them."""
    if not split.searches_pages:
        return []
    return await wiki.db.read(_page_hits, wiki, reader, split, limit)
