"""Realm linkifiers: a pattern with named groups turned into a link via an RFC 6570 template.

A linkifier only matches as a whole word: after the start, whitespace or an
opening delimiter, and before the end or a non-alphanumeric character. Patterns
come from realm administrators, so each runs with a time limit; a pattern that
does not compile is skipped (and logged) instead of breaking every message.
The same rules produce a topic's `topic_links`, together with the topic's bare URLs.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import quote, urlsplit

import regex
from markdown.inlinepatterns import InlineProcessor
from uritemplate import URITemplate

from atrium.chat.markdown.context import Linkifier
from atrium.chat.markdown.urls import url_to_a, web_link_regex

logger = logging.getLogger(__name__)

BEFORE_GROUP = "linkifier_before_match"
MATCH_GROUP = "linkifier_actual_match"
AFTER_GROUP = "linkifier_after_match"
# Seconds one linkifier may spend on one piece of text.
MATCH_TIMEOUT = 0.05


def prepare_pattern(source: str) -> str:
    return (
        rf"(?P<{BEFORE_GROUP}>^|\s|\u0085|\p{{Z}}|['\"\(,:<])"
        rf"(?P<{MATCH_GROUP}>{source})"
        rf"(?P<{AFTER_GROUP}>$|[^\p{{L}}\p{{N}}])"
    )


class TimedPattern:
    """A compiled `regex` pattern whose searches give up after `MATCH_TIMEOUT`."""

    def __init__(self, compiled: Any) -> None:
        self.compiled = compiled
        self.pattern: str = compiled.pattern

    def finditer(self, text: str, pos: int = 0) -> Iterator[Any]:
        try:
            yield from self.compiled.finditer(text, pos, timeout=MATCH_TIMEOUT)
        except TimeoutError:
            logger.warning("linkifier pattern timed out: %r", self.pattern)

    def search(self, text: str, pos: int = 0) -> Any:
        try:
            return self.compiled.search(text, pos, timeout=MATCH_TIMEOUT)
        except TimeoutError:
            logger.warning("linkifier pattern timed out: %r", self.pattern)
            return None


# A template whose expressions are all `{name}`: RFC 6570's simple string expansion, which
# percent-encodes everything but the unreserved characters. Most linkifiers are of this kind,
# and expanding them here skips uritemplate's general machinery (a third of a linkifier match).
_SIMPLE_EXPRESSION = re.compile(r"\{([A-Za-z0-9_]+)\}")


class SimpleTemplate:
    """A `{name}`-only URI template, expanded as uritemplate expands it."""

    def __init__(self, template: str) -> None:
        pieces = _SIMPLE_EXPRESSION.split(template)
        # Literal text at even positions, variable names at odd ones.
        self.literals = pieces[0::2]
        self.names = pieces[1::2]

    @staticmethod
    def parse(template: str) -> SimpleTemplate | None:
        """The template, if every expression in it is a plain `{name}`."""
        if "{" not in _SIMPLE_EXPRESSION.sub("", template):
            return SimpleTemplate(template)
        return None

    def expand(self, values: dict[str, str]) -> str:
        out = [self.literals[0]]
        for name, literal in zip(self.names, self.literals[1:], strict=True):
            value = values.get(name)
            if value:
                out.append(quote(value, safe=""))
            out.append(literal)
        return "".join(out)


@dataclass(frozen=True)
class CompiledLinkifier:
    pattern: TimedPattern
    template: URITemplate
    simple: SimpleTemplate | None = None

    def expand(self, m: Any) -> str:
        values = {k: v for k, v in m.groupdict().items() if v}
        if self.simple is not None:
            return self.simple.expand(values)
        return str(self.template.expand(**values))


@lru_cache(maxsize=1024)
def compile_linkifier(pattern: str, url_template: str) -> CompiledLinkifier | None:
    try:
        compiled = regex.compile(prepare_pattern(pattern))
        template = URITemplate(url_template)
    except (regex.error, ValueError, TypeError):
        logger.warning("skipping linkifier that does not compile: %r", pattern)
        return None
    return CompiledLinkifier(TimedPattern(compiled), template, SimpleTemplate.parse(url_template))


Handled = tuple[Any, int | None, int | None]


class LinkifierProcessor(InlineProcessor):  # type: ignore[misc]
    def __init__(self, linkifier: CompiledLinkifier, md: Any) -> None:
        super().__init__(r"(?!)", md)
        self.linkifier = linkifier
        self.compiled_re = linkifier.pattern

    def handleMatch(self, m: Any, data: str) -> Handled:
        a = url_to_a(self.md.zulip_ctx.realm_url, self.linkifier.expand(m), m.group(MATCH_GROUP))
        if a is None:
            return None, None, None
        return a, m.start(MATCH_GROUP), m.end(MATCH_GROUP)


# A topic is cut at these characters before looking for bare URLs in it.
_TOPIC_SPLITTER = re.compile(r"[ !;\),\'\"]")


@dataclass
class _TopicMatch:
    url: str
    text: str
    index: int
    precedence: int | None


def topic_links(topic: str, linkifiers: Sequence[Linkifier]) -> list[dict[str, str]]:
    """Zulip's `topic_links` for a topic: linkifier matches and bare URLs, left to right.

    Where matches overlap, an earlier linkifier beats a later one and any
    linkifier beats a bare URL.
    """
    matches: list[_TopicMatch] = []
    for precedence, lf in enumerate(linkifiers):
        compiled = compile_linkifier(lf.pattern, lf.url_template)
        if compiled is None:
            continue
        pos = 0
        while pos < len(topic):
            m = compiled.pattern.search(topic, pos)
            if m is None:
                break
            # Rewind over the delimiter after the match: it may start the next one.
            pos = max(m.end() - len(m.group(AFTER_GROUP)), pos + 1)
            matches.append(
                _TopicMatch(compiled.expand(m), m.group(MATCH_GROUP), m.start(), precedence)
            )
    matches.sort(key=lambda t: (t.precedence, t.index))

    link_re = web_link_regex()
    pos = 0
    while pos < len(topic):
        split = _TOPIC_SPLITTER.search(topic, pos)
        end = split.start() if split is not None else len(topic)
        found = link_re.search(topic[pos:end])
        if found is not None:
            text = found.group("url")
            parts = urlsplit(text)
            if not parts.scheme:
                if not parts.netloc:
                    i = (parts.path + "/").index("/")
                    parts = parts._replace(netloc=parts.path[:i], path=parts.path[i:])
                url = parts._replace(scheme="https").geturl()
            else:
                url = text
            matches.append(_TopicMatch(url, text, pos, None))
        pos = end + 1

    def overlap(a: _TopicMatch, b: _TopicMatch) -> bool:
        return (b.index <= a.index < b.index + len(b.text)) or (
            a.index <= b.index < a.index + len(a.text)
        )

    applied: list[_TopicMatch] = []
    for match in matches:
        if not any(overlap(old, match) for old in applied):
            applied.append(match)
    applied.sort(key=lambda t: t.index)
    return [{"url": t.url, "text": t.text} for t in applied]
