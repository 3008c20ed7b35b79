"""Fenced blocks (code, quote, spoiler, math) and Pygments highlighting.

Fences are handled before block parsing, as Zulip does: a line of three or
more backticks or tildes opens a block, optionally followed by a language and,
for spoilers, a header. Code and math are rendered here and stashed as raw
HTML; quote and spoiler bodies are turned back into Markdown (`> ` lines, or a
spoiler frame around the body) so the block parser renders their contents.
Blocks nest: a quote may hold code, another quote or a spoiler.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any
from xml.etree.ElementTree import Element

import pygments
from markdown import Markdown
from markdown.extensions.codehilite import CodeHilite, parse_hl_lines
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from pygments.formatter import Formatter
from pygments.formatters import get_formatter_by_name
from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class_by_name, get_lexer_by_name
from pygments.util import ClassNotFound

from atrium.chat.markdown.tex import render_tex

FENCE_RE = re.compile(
    r"""
    (?P<fence>^(?:~{3,}|`{3,}))
    [ ]*
    (?:
        \{?\.?
        (?P<lang>[a-zA-Z0-9_+-./#]+)
        [ ]*
        (?P<header>[^ ~`][^~`]*)?
        \}?
    )?
    $
    """,
    re.VERBOSE,
)

SPOILER_OPEN = '<div class="spoiler-block"><div class="spoiler-header">'
SPOILER_MIDDLE = '</div><div class="spoiler-content" aria-hidden="true">'
SPOILER_CLOSE = "</div></div>"

# Newer Pygments wraps runs of whitespace in their own token span; Zulip's
# HTML (and its fixture) has bare whitespace there.
_WHITESPACE_SPAN_RE = re.compile(r'<span class="w">(\s*)</span>')
_TAG_OR_TEXT_RE = re.compile(r"(<[^>]*>)")
_SHEBANG_RE = re.compile(
    r"""
    (?:(?:^::+)|(?P<shebang>^[#]!))
    (?P<path>(?:/\w+)*[/ ])?
    (?P<lang>[\w#.+-]*)
    \s*
    (hl_lines=(?P<quot>"|')(?P<hl_lines>.*?)(?P=quot))?
    """,
    re.VERBOSE,
)


@lru_cache(maxsize=512)
def _highlighter(lang: str | None, options: tuple[tuple[str, Any], ...]) -> tuple[Lexer, Formatter]:
    """A lexer and formatter per language and options: Pygments builds both slowly, reuses both."""
    kwargs = {key: list(value) if isinstance(value, tuple) else value for key, value in options}
    try:
        lexer = get_lexer_by_name(lang, **kwargs)
    except ClassNotFound:
        lexer = get_lexer_by_name("text", **kwargs)
    return lexer, get_formatter_by_name("html", **kwargs)


class _ZulipCodeHilite(CodeHilite):  # type: ignore[misc]
    """Highlighting that reads a `#!lang` / `:::lang` first line but keeps it.

    Upstream hides that line, which empties one-line blocks starting with `#!`.
    `hilite` is upstream's with Pygments (no language guessing), except that
    lexers and formatters come from `_highlighter`, built once.
    """

    src: str
    lang: str | None
    options: dict[str, Any]

    def hilite(self, shebang: bool = True) -> str:
        self.src = self.src.strip("\n")
        if self.lang is None and shebang:
            self._parseHeader()
        options = tuple(
            sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in self.options.items())
        )
        lexer, formatter = _highlighter(self.lang, options)
        return str(pygments.highlight(self.src, lexer, formatter))

    def _parseHeader(self) -> None:
        first = self.src.split("\n", 1)[0]
        m = _SHEBANG_RE.search(first)
        if m:
            self.lang = m.group("lang").lower() or None
            self.options["hl_lines"] = parse_hl_lines(m.group("hl_lines"))
        self.src = self.src.strip("\n")


def _escape_quotes_in_text(markup: str) -> str:
    parts = _TAG_OR_TEXT_RE.split(markup)
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace('"', "&quot;").replace("'", "&#39;")
    return "".join(parts)


_language_names: dict[str, str] = {}


def code_language_name(lang: str) -> str:
    """Pygments' canonical name for `lang` (`py2` -> `Python 2.x`), else `lang` itself."""
    name = _language_names.get(lang)
    if name is None:
        try:
            name = str(find_lexer_class_by_name(lang).name)
        except ClassNotFound:
            name = lang
        _language_names[lang] = name
    return name


def highlight(text: str, lang: str | None) -> str:
    """The `div.codehilite` HTML of one code block."""
    hiliter = _ZulipCodeHilite(
        text,
        lang=lang or None,
        guess_lang=False,
        linenums=False,
        css_class="codehilite",
        # PHP lexers only highlight after `<?php` unless told to start inline.
        startinline=True,
    )
    code = _WHITESPACE_SPAN_RE.sub(r"\1", hiliter.hilite().rstrip("\n"))
    if not lang:
        # Zulip's older Pygments escaped quotes; its tagged blocks were
        # re-serialised by lxml, which un-escaped them. Keep both shapes.
        return _escape_quotes_in_text(code)
    language = html.escape(code_language_name(lang), quote=True)
    return code.replace(
        '<div class="codehilite">',
        f'<div class="codehilite" data-code-language="{language}">',
        1,
    )


def format_tex_block(text: str, render_math: bool = True) -> str:
    rendered = []
    for paragraph in text.split("\n\n"):
        tex = render_tex(paragraph, is_inline=False) if render_math else None
        if tex is None:
            tex = '<span class="tex-error">' + html.escape(paragraph, quote=True) + "</span>"
        rendered.append(tex)
    return "\n\n".join(rendered)


class _Block:
    """One open fenced block; `output` is where its rendering goes when it closes."""

    process_contents = False

    def __init__(self, pre: FencedBlockPreprocessor, output: list[str], fence: str) -> None:
        self.pre = pre
        self.output = output
        self.fence = fence
        self.lines: list[str] = []

    def handle_line(self, line: str) -> None:
        if line.rstrip() == self.fence:
            self.done()
        else:
            self.lines.append(line.rstrip())

    def done(self) -> None:
        if self.lines:
            text = self.format("\n".join(self.lines))
            if not self.process_contents:
                text = self.pre.stash(text)
            self.output.append("")
            self.output.extend(text.split("\n"))
            self.output.append("")
        self.pre.stack.pop()

    def format(self, text: str) -> str:
        return text


class _Outer(_Block):
    def handle_line(self, line: str) -> None:
        self.pre.open_or_append(self.output, line)


class _Code(_Block):
    def __init__(
        self, pre: FencedBlockPreprocessor, output: list[str], fence: str, lang: str | None
    ) -> None:
        super().__init__(pre, output, fence)
        self.lang = lang

    def format(self, text: str) -> str:
        return highlight(text, self.lang)


class _Math(_Block):
    def format(self, text: str) -> str:
        return format_tex_block(text, self.pre.md.zulip_ctx.render_math)


class _Quote(_Block):
    process_contents = True

    def handle_line(self, line: str) -> None:
        if line.rstrip() == self.fence:
            self.done()
        else:
            self.pre.open_or_append(self.lines, line)

    def format(self, text: str) -> str:
        return "\n".join("> " + line for line in text.split("\n"))


class _Spoiler(_Quote):
    def __init__(
        self, pre: FencedBlockPreprocessor, output: list[str], fence: str, header: str | None
    ) -> None:
        super().__init__(pre, output, fence)
        self.header = header

    def format(self, text: str) -> str:
        parts = [self.pre.stash(SPOILER_OPEN)]
        if self.header is not None:
            parts.append(self.header)
        parts += [self.pre.stash(SPOILER_MIDDLE), text, self.pre.stash(SPOILER_CLOSE)]
        return "\n\n".join(parts)


class FencedBlockPreprocessor(Preprocessor):  # type: ignore[misc]
    def __init__(self, md: Markdown) -> None:
        super().__init__(md)
        self.stack: list[_Block] = []

    def stash(self, raw_html: str) -> str:
        return str(self.md.htmlStash.store(raw_html))

    def open_or_append(self, target: list[str], line: str) -> None:
        m = FENCE_RE.match(line)
        if m is None:
            target.append(line)
            return
        fence = m.group("fence")
        lang = m.group("lang")
        lang = lang.lower() if lang else None
        block: _Block
        if lang in ("quote", "quoted"):
            block = _Quote(self, target, fence)
        elif lang == "math":
            block = _Math(self, target, fence)
        elif lang == "spoiler":
            block = _Spoiler(self, target, fence, m.group("header"))
        else:
            block = _Code(self, target, fence, lang)
        self.stack.append(block)

    def run(self, lines: list[str]) -> list[str]:
        output: list[str] = []
        self.stack = [_Outer(self, output, "")]
        for line in lines:
            self.stack[-1].handle_line(line)
        while self.stack:
            self.stack[-1].done()
        if len(output) > 2 and output[-2] != "":
            output.append("")
        return output


class IndentedCodeTreeprocessor(Treeprocessor):  # type: ignore[misc]
    """Highlights 4-space indented code blocks like fenced ones without a language."""

    def run(self, root: Element) -> None:
        blocks = root.iter("pre")
        stash: Callable[[str], str] = self.md.htmlStash.store
        for pre in blocks:
            if len(pre) == 1 and pre[0].tag == "code":
                code = pre[0]
                # The block parser already escaped the text; highlight the source.
                text = (code.text or "").replace("&lt;", "<").replace("&gt;", ">")
                text = text.replace("&amp;", "&")
                pre.clear()
                pre.tag = "p"
                pre.text = stash(highlight(text.rstrip("\n"), None))
