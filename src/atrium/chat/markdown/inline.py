"""Inline syntax: code spans, emphasis, links, bare URLs, times and inline math.

Zulip's choices: only `*` makes emphasis (never `_`), `**` may not span lines,
`~~` strikes through, a code span keeps its surrounding spaces, link text is
never re-parsed, and every href goes through `sanitize_url`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from xml.etree.ElementTree import Element

import dateutil.parser
from markdown.inlinepatterns import InlineProcessor
from markdown.inlinepatterns import (
    LinkInlineProcessor as _UpstreamLink,
)
from markdown.util import ETX, STX, AtomicString, code_escape

from atrium.chat.markdown.tex import render_tex
from atrium.chat.markdown.timezones import COMMON_TIMEZONES
from atrium.chat.markdown.urls import rewrite_local_link, sanitize_url, url_to_a

# BACKTICK_RE and NOT_STRONG_RE open with a lookahead for the character every match starts with:
# `re` tries a pattern at every position of the text, and without it each try entered the
# alternation (several times slower per pass; docs/decisions/0001).
BACKTICK_RE = r"(?=[`\\])(?:(?<!\\)((?:\\{2})+)(?=`+)|(?<!\\)(`+)(.+?)(?<!`)\2(?!`))"
DEL_RE = r"(?<!~)(\~\~)([^~\n]+?)(\~\~)(?!~)"
# The text inside `*...*` may not start or end with a space: "char *x = (char *)y".
EMPHASIS_RE = r"(\*)(?!\s+)([^\*^\n]+)(?<!\s)\*"
STRONG_RE = r"(\*\*)([^\n]+?)\1"
STRONG_EM_RE = r"(\*\*\*)(?!\s+)([^\*^\n]+)(?<!\s)\*\*\*"
NOT_STRONG_RE = r"(?=[*_])((^|(?<=\s))(\*{1,3}|_{1,3})(?=\s|$))"
TEX_RE = r"\B(?<!\$)\$\$(?P<body>[^\n_$](\\\$|[^$\n])*)\$\$(?!\$)\B"
TIMESTAMP_RE = r"<time:(?P<time>[^>]*?)>"

Handled = tuple[Element | str | None, int | None, int | None]
_NO_MATCH: tuple[None, None, None] = (None, None, None)


class BacktickProcessor(InlineProcessor):  # type: ignore[misc]
    """Code spans delimited by equal runs of backticks, keeping inner spaces.

    Pairs of backslashes before a backtick stand for one backslash each.
    """

    def __init__(self) -> None:
        super().__init__(BACKTICK_RE)
        self.escaped_backslash = f"{STX}{ord(chr(92))}{ETX}"

    def handleMatch(self, m: re.Match[str], data: str) -> Handled:
        if m.group(3):
            el = Element("code")
            el.text = AtomicString(code_escape(m.group(3)))
            return el, m.start(0), m.end(0)
        return m.group(1).replace("\\\\", self.escaped_backslash), m.start(0), m.end(0)


# Characters the bracket and parenthesis scans of one message's links may read in all. Each `[`
# scans ahead for its `]` and `(` for its `)`: a run of unclosed `[](` made every one of them
# read to the end of the message (10,000 characters took two seconds). A real message's links
# read about its own length; past the budget `[` is plain text.
LINK_SCAN_BUDGET = 50_000


class LinkProcessor(_UpstreamLink):  # type: ignore[misc]
    """`[text](url)` with a sanitized href; an empty text shows the URL."""

    def getText(self, data: str, index: int) -> tuple[str, int, bool]:
        result: tuple[str, int, bool] = self._bounded(super().getText, data, index)
        return result

    def getLink(self, data: str, index: int) -> tuple[str, str | None, int, bool]:
        result: tuple[str, str | None, int, bool] = self._bounded(super().getLink, data, index)
        return result

    def _bounded(self, scan: Any, data: str, index: int) -> Any:
        """Run an upstream scan over at most what is left of the budget, and charge it."""
        budget: int = self.md.link_scan_budget
        window = data if len(data) - index <= budget else data[: index + budget]
        result = scan(window, index)
        self.md.link_scan_budget = max(0, budget - (result[-2] - index))
        return result

    def handleMatch(self, m: re.Match[str], data: str) -> Handled:
        el, start, end = super().handleMatch(m, data)
        if not isinstance(el, Element):
            return _NO_MATCH
        href = sanitize_url(self.unescape(el.get("href", "").strip()))
        if href is None:
            return _NO_MATCH
        href = rewrite_local_link(self.md.zulip_ctx.realm_url, href)
        el.set("href", href)
        if not el.text or not el.text.strip():
            el.text = href
        # Link text is final: no linkifier or mention may break the link apart.
        el.text = AtomicString(el.text)
        self.md.zulip_result.links_for_preview.add(href)
        return el, start, end


class AutoLinkProcessor(InlineProcessor):  # type: ignore[misc]
    """Bare URLs, domains with a known TLD, and e-mail addresses."""

    def __init__(self, compiled: re.Pattern[str], md: Any) -> None:
        super().__init__(compiled.pattern, md)
        self.compiled_re = compiled

    def handleMatch(self, m: re.Match[str], data: str) -> Handled:
        url = m.group("url")
        a = url_to_a(self.md.zulip_ctx.realm_url, url)
        if a is None:
            return _NO_MATCH
        self.md.zulip_result.links_for_preview.add(a.get("href", ""))
        return a, m.start("url"), m.end("url")


def parse_time(text: str) -> datetime | None:
    """A point in time from what people type in `<time:...>`, or None."""
    try:
        when: datetime = dateutil.parser.parse(text, tzinfos=COMMON_TIMEZONES)
    except (ValueError, OverflowError):
        try:
            when = datetime.fromtimestamp(float(text), tz=UTC)
        except (ValueError, OverflowError, OSError):
            return None
    if when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


class TimestampProcessor(InlineProcessor):  # type: ignore[misc]
    """`<time:...>` becomes `<time datetime="...Z">` keeping what was typed."""

    def handleMatch(self, m: re.Match[str], data: str) -> Handled:
        text = m.group("time")
        when = parse_time(text)
        if when is None:
            el = Element("span")
            el.set("class", "timestamp-error")
            el.text = AtomicString(f"Invalid time format: {text}")
        else:
            el = Element("time")
            el.set("datetime", when.isoformat().replace("+00:00", "Z"))
            el.text = AtomicString(text)
        return el, m.start(), m.end()


class TexProcessor(InlineProcessor):  # type: ignore[misc]
    """`$$...$$` on one line."""

    def handleMatch(self, m: re.Match[str], data: str) -> Handled:
        body = m.group("body")
        rendered = render_tex(body, is_inline=True) if self.md.zulip_ctx.render_math else None
        if rendered is not None:
            return self.md.htmlStash.store(rendered), m.start(), m.end()
        el = Element("span")
        el.set("class", "tex-error")
        el.text = AtomicString("$$" + body + "$$")
        return el, m.start(), m.end()
