"""The Markdown engine: Python-Markdown configured as Zulip configures it.

One `ZulipMarkdown` instance is built per set of linkifiers (per thread,
because Python-Markdown instances are not thread-safe) and reused: building
one compiles many patterns, rendering with one only needs a `reset()`.
`render_markdown` never raises: on an internal error it logs and returns the
escaped text in a paragraph, flagged `failed`.
"""

from __future__ import annotations

import html
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any
from xml.etree.ElementTree import Element

import markdown
from markdown.blockparser import BlockParser
from markdown.blockprocessors import (
    CodeBlockProcessor,
    EmptyBlockProcessor,
    HRProcessor,
    ParagraphProcessor,
)
from markdown.extensions import nl2br, tables
from markdown.inlinepatterns import (
    ENTITY_RE,
    LINK_RE,
    DoubleTagInlineProcessor,
    HtmlInlineProcessor,
    SimpleTagInlineProcessor,
    SimpleTextInlineProcessor,
)
from markdown.postprocessors import AndSubstitutePostprocessor, RawHtmlPostprocessor
from markdown.preprocessors import NormalizeWhitespace
from markdown.treeprocessors import InlineProcessor, PrettifyTreeprocessor, UnescapeTreeprocessor
from markdown.util import Registry

from atrium.chat.markdown import blocks, inline
from atrium.chat.markdown.code import FencedBlockPreprocessor, IndentedCodeTreeprocessor
from atrium.chat.markdown.context import EMPTY_CONTEXT, RenderContext, RenderResult
from atrium.chat.markdown.emoji import (
    EmojiNameProcessor,
    EmoticonProcessor,
    UnicodeEmojiProcessor,
    emoji_table,
)
from atrium.chat.markdown.linkifiers import LinkifierProcessor, compile_linkifier
from atrium.chat.markdown.mentions import (
    GroupMentionProcessor,
    StreamLinkProcessor,
    StreamTopicLinkProcessor,
    UserMentionProcessor,
)
from atrium.chat.markdown.previews import InlineImagePreviewProcessor
from atrium.chat.markdown.sanitize import is_safe_html
from atrium.chat.markdown.urls import web_link_regex
from atrium.chat.markdown.wikilinks import WikiLinkProcessor

logger = logging.getLogger(__name__)

LinkifierKey = tuple[tuple[str, str], ...]
# Engines kept per thread; a realm's engine is rebuilt when its linkifiers change.
MAX_ENGINES_PER_THREAD = 32
_WORD_RE = re.compile(r"\w")

Trigger = Callable[[str, RenderContext], bool]


def _emoticon_trigger() -> Trigger:
    emoticons = tuple(emoji_table().emoticon_conversions)

    def trigger(content: str, ctx: RenderContext) -> bool:
        return ctx.translate_emoticons and any(e in content for e in emoticons)

    return trigger


# When an inline pattern can match at all: what its match must contain, tested
# on the whole message (every piece of text the inline pass sees is cut out of
# the message, so a pattern whose characters are absent cannot match). Patterns
# not listed (linkifiers) are always tried.
INLINE_TRIGGERS: dict[str, Trigger] = {
    "backtick": lambda c, ctx: "`" in c,
    "strong_em": lambda c, ctx: "***" in c,
    "usermention": lambda c, ctx: "@**" in c or "@_**" in c,
    "tex": lambda c, ctx: "$$" in c,
    "topic": lambda c, ctx: "#**" in c and ">" in c,
    "stream": lambda c, ctx: "#**" in c,
    "timestamp": lambda c, ctx: "<time:" in c,
    "usergroupmention": lambda c, ctx: "@*" in c or "@_*" in c,
    "wikilink": lambda c, ctx: "[[" in c and bool(ctx.wiki_links),
    "link": lambda c, ctx: "](" in c,
    "autolink": lambda c, ctx: "." in c or "://" in c or "bitcoin:" in c,
    "entity": lambda c, ctx: "&" in c,
    "strong": lambda c, ctx: "**" in c,
    "emphasis": lambda c, ctx: "*" in c,
    "del": lambda c, ctx: "~~" in c,
    "not_strong": lambda c, ctx: "*" in c or "_" in c,
    "emoji": lambda c, ctx: ":" in c,
    "translate_emoticons": _emoticon_trigger(),
    "nl": lambda c, ctx: "\n" in c,
    "unicodeemoji": lambda c, ctx: not c.isascii(),
}


class RenderTimeout(Exception):
    """Rendering ran past its time budget."""


# Seconds one message may take to render (ATRIUM_RENDER_TIMEOUT); Zulip renders under a timeout
# too and refuses the message when it runs out.
_time_budget = 10.0


def set_time_budget(seconds: float) -> None:
    global _time_budget
    _time_budget = max(0.001, seconds)


class SelectiveInlineProcessor(InlineProcessor):  # type: ignore[misc]
    """Python-Markdown's inline pass, over only the patterns this message can match, watching
    the clock: every application of a pattern checks the render's deadline."""

    def run(self, tree: Element, ancestors: list[str] | None = None) -> Any:
        self.inlinePatterns = self.md.active_inline_patterns
        return super().run(tree, ancestors)

    def _InlineProcessor__applyPattern(self, *args: Any) -> Any:
        if time.perf_counter() > self.md.deadline:
            raise RenderTimeout
        return InlineProcessor._InlineProcessor__applyPattern(self, *args)


class ZulipMarkdown(markdown.Markdown):  # type: ignore[misc]
    """Python-Markdown with Zulip's processors; per-render state lives in `zulip_ctx`/`zulip_result`."""

    def __init__(self, linkifiers: LinkifierKey) -> None:
        self.linkifiers = linkifiers
        self.zulip_ctx: RenderContext = EMPTY_CONTEXT
        self.zulip_result = RenderResult(html="")
        self.active_inline_patterns: list[Any] = []
        self.link_scan_budget = inline.LINK_SCAN_BUDGET
        self.deadline = 0.0
        self._pattern_sets: dict[tuple[bool, ...], list[Any]] = {}
        super().__init__(
            extensions=[nl2br.makeExtension(), tables.makeExtension()],
            output_format="html",
        )
        # After the extensions (nl2br registers its pattern after `build_parser`).
        patterns = list(self.inlinePatterns)  # in priority order
        names = [item.name for item in self.inlinePatterns._priority]  # sorted by that
        self._triggers = [
            (INLINE_TRIGGERS.get(name), pattern)
            for name, pattern in zip(names, patterns, strict=True)
        ]

    def select_inline_patterns(self, content: str, ctx: RenderContext) -> None:
        """Keep, in priority order, the inline patterns `content` can match."""
        key = tuple(trigger is None or trigger(content, ctx) for trigger, _ in self._triggers)
        patterns = self._pattern_sets.get(key)
        if patterns is None:
            patterns = self._pattern_sets[key] = [
                pattern for active, (_, pattern) in zip(key, self._triggers, strict=True) if active
            ]
        self.active_inline_patterns = patterns

    def build_parser(self) -> ZulipMarkdown:
        self.preprocessors = self._build_preprocessors()
        self.parser = self._build_block_parser()
        self.inlinePatterns = self._build_inline_patterns()
        self.treeprocessors = self._build_treeprocessors()
        self.postprocessors = self._build_postprocessors()
        return self

    def _build_preprocessors(self) -> Registry:
        # Not registered: raw HTML blocks (unsafe) and reference definitions.
        reg = Registry()
        reg.register(blocks.HangingListPreprocessor(self), "hanging_lists", 35)
        reg.register(NormalizeWhitespace(self), "normalize_whitespace", 30)
        reg.register(FencedBlockPreprocessor(self), "fenced_code_block", 25)
        return reg

    def _build_block_parser(self) -> BlockParser:
        # Not registered: setext headings, reference definitions.
        parser = BlockParser(self)
        procs = parser.blockprocessors
        procs.register(EmptyBlockProcessor(parser), "empty", 95)
        procs.register(blocks.list_indent_processor(parser), "indent", 90)
        procs.register(CodeBlockProcessor(parser), "code", 85)
        procs.register(blocks.HashHeaderProcessor(parser), "hashheader", 80)
        # 75 is the tables extension.
        procs.register(HRProcessor(parser), "hr", 70)
        procs.register(blocks.olist_processor(parser), "olist", 65)
        procs.register(blocks.ulist_processor(parser), "ulist", 60)
        procs.register(blocks.BlockQuoteProcessor(parser), "quote", 55)
        procs.register(ParagraphProcessor(parser), "paragraph", 50)
        return parser

    def _build_inline_patterns(self) -> Registry:
        # Not registered: backslash escapes, raw HTML, references, images,
        # `<url>` autolinks, `_` emphasis. Priorities follow Zulip's order.
        reg = Registry()
        reg.register(inline.BacktickProcessor(), "backtick", 105)
        reg.register(DoubleTagInlineProcessor(inline.STRONG_EM_RE, "strong,em"), "strong_em", 100)
        reg.register(UserMentionProcessor(self), "usermention", 95)
        reg.register(inline.TexProcessor(inline.TEX_RE, self), "tex", 90)
        reg.register(StreamTopicLinkProcessor(self), "topic", 87)
        reg.register(StreamLinkProcessor(self), "stream", 85)
        reg.register(inline.TimestampProcessor(inline.TIMESTAMP_RE, self), "timestamp", 75)
        reg.register(GroupMentionProcessor(self), "usergroupmention", 65)
        reg.register(WikiLinkProcessor(self), "wikilink", 62)
        reg.register(inline.LinkProcessor(LINK_RE, self), "link", 60)
        reg.register(inline.AutoLinkProcessor(web_link_regex(), self), "autolink", 55)
        for pattern, template in self.linkifiers:
            compiled = compile_linkifier(pattern, template)
            if compiled is not None:
                reg.register(LinkifierProcessor(compiled, self), f"linkifiers/{pattern}", 45)
        reg.register(HtmlInlineProcessor(ENTITY_RE, self), "entity", 40)
        reg.register(SimpleTagInlineProcessor(inline.STRONG_RE, "strong"), "strong", 35)
        reg.register(SimpleTagInlineProcessor(inline.EMPHASIS_RE, "em"), "emphasis", 30)
        reg.register(SimpleTagInlineProcessor(inline.DEL_RE, "del"), "del", 25)
        reg.register(SimpleTextInlineProcessor(inline.NOT_STRONG_RE), "not_strong", 20)
        reg.register(EmojiNameProcessor(self), "emoji", 15)
        reg.register(EmoticonProcessor(self), "translate_emoticons", 10)
        # 5 is nl2br's line break.
        reg.register(UnicodeEmojiProcessor(self), "unicodeemoji", 0)
        return reg

    def _build_treeprocessors(self) -> Registry:
        reg = Registry()
        reg.register(IndentedCodeTreeprocessor(self), "hilite", 30)
        reg.register(SelectiveInlineProcessor(self), "inline", 25)
        reg.register(PrettifyTreeprocessor(self), "prettify", 20)
        reg.register(UnescapeTreeprocessor(self), "unescape", 18)
        reg.register(InlineImagePreviewProcessor(self), "inline_interesting_links", 15)
        return reg

    def _build_postprocessors(self) -> Registry:
        reg = Registry()
        reg.register(RawHtmlPostprocessor(self), "raw_html", 20)
        reg.register(AndSubstitutePostprocessor(), "amp_substitute", 15)
        return reg


_local = threading.local()


def get_engine(linkifiers: LinkifierKey) -> ZulipMarkdown:
    engines: OrderedDict[LinkifierKey, ZulipMarkdown] | None = getattr(_local, "engines", None)
    if engines is None:
        engines = _local.engines = OrderedDict()
    engine = engines.get(linkifiers)
    if engine is None:
        engine = engines[linkifiers] = ZulipMarkdown(linkifiers)
        if len(engines) > MAX_ENGINES_PER_THREAD:
            engines.popitem(last=False)
    else:
        engines.move_to_end(linkifiers)
    return engine


def escaped_fallback(content: str) -> str:
    return "<p>" + html.escape(content, quote=False).replace("\n", "<br>\n") + "</p>"


def is_me_message(content: str, rendered: str) -> bool:
    """`/me does something`: any content that starts so, over one line or several, as Zulip 7
    decides (the rendering does not matter)."""
    return content.startswith("/me ")


def convert(content: str, ctx: RenderContext) -> RenderResult:
    """Render `content`; exceptions propagate (see `render_markdown`)."""
    engine = get_engine(ctx.linkifier_key)
    engine.reset()
    result = RenderResult(html="")
    engine.zulip_ctx = ctx
    engine.zulip_result = result
    engine.select_inline_patterns(content, ctx)
    engine.link_scan_budget = inline.LINK_SCAN_BUDGET
    engine.deadline = time.perf_counter() + _time_budget
    try:
        result.html = engine.convert(content)
    finally:
        engine.zulip_ctx = EMPTY_CONTEXT
        engine.zulip_result = RenderResult(html="")
    return result


def privacy_clean(content: str) -> str:
    """What may go into a log about a message: its shape, not its words."""
    return repr(_WORD_RE.sub("x", content))


def safe_convert(content: str, ctx: RenderContext) -> RenderResult:
    try:
        result = convert(content, ctx)
        if is_safe_html(result.html):
            result.is_me_message = is_me_message(content, result.html)
            return result
        logger.error(
            "markdown output failed the safety check; input was %s", privacy_clean(content)
        )
    except RenderTimeout:
        logger.warning("markdown rendering timed out; input was %s", privacy_clean(content))
        return RenderResult(html=escaped_fallback(content), failed=True, timed_out=True)
    except Exception:
        logger.exception("markdown rendering failed; input was %s", privacy_clean(content))
    return RenderResult(html=escaped_fallback(content) if content.strip() else "", failed=True)
