"""One search box, two syntaxes: a query split into a Zulip narrow for messages and a MediaWiki
search for pages.

Zulip's operators (`stream:`, `topic:`, `sender:`, `is:`, `has:`, … with `-` to negate) go to
messages only; MediaWiki's `prefix:` (the rest of the query) and a leading namespace prefix
(`Help:`, `all:`) go to pages only; words, quoted phrases and `-word` go to both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from atrium.wiki.site import Site
from atrium.wiki.titles import NS_MAIN

# Zulip 7's narrow operators that a search box accepts.
MESSAGE_OPERATORS = frozenset(
    {
        "stream", "streams", "topic", "subject", "sender", "is", "has", "near", "id",
        "pm-with", "dm", "group-pm-with", "dm-including", "in",
    }
)  # fmt: skip
MAX_QUERY_CHARS = 500
_TOKEN = re.compile(r'(-?)([A-Za-z-]+):("[^"]*"|\S*)|(-?"[^"]*")|(\S+)')


@dataclass
class SplitQuery:
    narrow: list[dict[str, object]] = field(default_factory=list)
    message_text: str = ""  # the `search` operand
    page_text: str = ""  # MediaWiki's search text (words, phrases, -word)
    namespaces: list[int] = field(default_factory=lambda: [NS_MAIN])
    prefix: str | None = None  # `prefix:` text, a title prefix

    @property
    def searches_messages(self) -> bool:
        return bool(self.narrow or self.message_text)

    @property
    def searches_pages(self) -> bool:
        return bool(self.page_text.strip() or self.prefix)


def _unquote(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text.startswith('"') and text.endswith('"') else text


def split_query(site: Site, query: str) -> SplitQuery:
    query = query.strip()[:MAX_QUERY_CHARS]
    split = SplitQuery()
    # `prefix:` takes the rest of the query, as MediaWiki's.
    at = query.lower().find("prefix:")
    if at >= 0 and (at == 0 or query[at - 1].isspace()):
        split.prefix = query[at + len("prefix:") :].strip()
        query = query[:at]
    # A leading namespace prefix names the namespaces to search.
    head, colon, rest = query.partition(":")
    if colon and head.strip() and " " not in head.strip():
        name = head.strip()
        if name.lower() == "all":
            split.namespaces = [ns for ns in site.namespaces.ids() if ns >= 0]
            query = rest
        else:
            ns = site.namespaces.lookup(name)
            if ns is not None and ns >= 0:
                split.namespaces = [ns]
                query = rest
    words: list[str] = []
    message_words: list[str] = []
    for match in _TOKEN.finditer(query):
        negated, operator, operand, phrase, word = match.groups()
        if operator is not None:
            if operator.lower() in MESSAGE_OPERATORS:
                split.narrow.append(
                    {
                        "operator": operator.lower(),
                        "operand": _unquote(operand),
                        "negated": bool(negated),
                    }
                )
            else:
                # Not an operator of either: text, as both originals treat it.
                words.append(match.group(0))
                message_words.append(match.group(0))
            continue
        text = phrase or word or ""
        words.append(text)
        if not text.startswith("-"):
            message_words.append(_unquote(text))
    split.page_text = " ".join(words)
    split.message_text = " ".join(message_words).strip()
    if split.message_text:
        split.narrow.append({"operator": "search", "operand": split.message_text})
    return split
