"""Paragraphs as MediaWiki 1.39 makes them: BlockLevelPass's paragraph mode line by line (`<p>`
opened and closed around lines, blank lines as `</p><p>` or `<p><br />`, space-indented `<pre>`,
no paragraph on a line that holds a block-level tag, and none on the lines that follow an opening
one until it closes), then what RemexHtml's tidying and MediaWiki's RemexCompatMunger do to the
result: text and inline elements left directly in the page body (or in a blockquote) — beside a
thumbnail or a `<div>` in the middle of a line — are wrapped in a paragraph of their own."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_BLOCK_ELEMS = "table|h1|h2|h3|h4|h5|h6|pre|p|ul|ol|dl"
_OPEN = re.compile(rf"<(?:(?:{_BLOCK_ELEMS})|/(?:td|th)|/?(?:tr|caption|dt|dd|li))\b", re.I)
_CLOSE = re.compile(
    rf"<(?:/(?:{_BLOCK_ELEMS})|(?:td|th)|/?(?:center|blockquote|div|hr|mw:|aside|figure))\b",
    re.I,
)
_BLOCKQUOTE = re.compile(r"<(/?)blockquote[\s>]", re.I)
_PHP_TRIM = " \t\n\r\0\x0b"


@dataclass
class Paragraphs:
    """BlockLevelPass::execute for lines without a list prefix; `line` takes the line to write
    and the same line with held fragments released (what the tag tests look at)."""

    out: list[str] = field(default_factory=list)
    last: str = ""  # "", "p" or "pre": the open paragraph
    pending: str | None = None
    in_block: bool = False
    in_pre: bool = False
    in_blockquote: bool = False

    def close(self, at_end: bool = False) -> str:
        closing = ""
        if self.last:
            closing = f"</{self.last}>" + ("" if at_end else "\n")
        self.last = ""
        return closing

    def line(self, text: str, seen: str, last_line: bool) -> None:
        pre_close = re.search(r"</pre", seen, re.I) is not None
        pre_open = re.search(r"<pre", seen, re.I) is not None
        if not self.in_pre:
            self.in_pre = pre_open
        if _OPEN.search(seen) or _CLOSE.search(seen):
            close_match = _CLOSE.search(seen) is not None
            self.pending = None
            if not self.in_pre or pre_open:
                self.out.append(self.close())
            if pre_open and not pre_close:
                self.in_pre = True
            for match in _BLOCKQUOTE.finditer(seen):
                self.in_blockquote = not match.group(1)
            self.in_block = not close_match
        elif not self.in_block and not self.in_pre:
            blank = text.strip(_PHP_TRIM) == ""
            if text[:1] == " " and (self.last == "pre" or not blank) and not self.in_blockquote:
                if self.last != "pre":
                    self.pending = None
                    self.out.append(self.close() + "<pre>")
                    self.last = "pre"
                text = text[1:]
            elif blank:
                if self.pending is not None:
                    self.out.append(self.pending + "<br />")
                    self.pending = None
                    self.last = "p"
                elif self.last != "p":
                    self.out.append(self.close())
                    self.pending = "<p>"
                else:
                    self.pending = "</p><p>"
            elif self.pending is not None:
                self.out.append(self.pending)
                self.pending = None
                self.last = "p"
            elif self.last != "p":
                self.out.append(self.close() + "<p>")
                self.last = "p"
        if pre_close and self.in_pre:
            self.in_pre = False
        if self.pending is None:
            self.out.append(text)
            if not last_line or self.last:
                self.out.append("\n")

    def block(self, html: str, last_line: bool) -> None:
        """A list: no paragraph continues around it (the tree builder closes an open one)."""
        self.pending = None
        self.out.append(self.close())
        self.out.append(html)
        if not last_line:
            self.out.append("\n")

    def finish(self) -> str:
        self.out.append(self.close(at_end=True))
        return "".join(self.out)


# --- the tree builder's side ------------------------------------------------------------------------

_TOKEN = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*?(/?)>|<!--.*?-->", re.S)
_BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div",
    "dl", "dd", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
    "h4", "h5", "h6", "header", "hgroup", "hr", "li", "main", "menu", "nav", "ol", "p", "pre",
    "section", "table", "tbody", "thead", "tfoot", "tr", "td", "th", "caption", "ul", "style",
    "link", "meta",
})  # fmt: skip
_VOID = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
    "track", "wbr",
})  # fmt: skip


def wrap_loose_text(body: str) -> str:
    """RemexCompatMunger's p-wrapping: a run of text and inline elements directly in the body
    or a blockquote, holding more than whitespace, becomes a paragraph."""
    out: list[str] = []
    stack: list[str] = []
    wrapping = False
    wrap_depth = 0  # how many elements were open when the paragraph started

    def wrap_here() -> bool:
        return not stack or stack[-1] == "blockquote"

    def close_wrap() -> None:
        nonlocal wrapping
        if wrapping:
            out.append("</p>")
            wrapping = False

    def open_wrap() -> None:
        nonlocal wrapping, wrap_depth
        out.append("<p>")
        wrapping, wrap_depth = True, len(stack)

    def text(chunk: str) -> None:
        if chunk and wrap_here() and not wrapping and chunk.strip(" \t\n\r\x0c"):
            open_wrap()
        out.append(chunk)

    at = 0
    for match in _TOKEN.finditer(body):
        text(body[at : match.start()])
        at = match.end()
        name = (match.group(2) or "").lower()
        if not name:
            out.append(match.group(0))
            continue
        closing, selfclosing = bool(match.group(1)), bool(match.group(3))
        if closing:
            if name in stack:
                where = len(stack) - 1 - stack[::-1].index(name)
                if where < wrap_depth:
                    close_wrap()  # the element the run is in, or one around it, ends
                del stack[where:]
            elif name in _BLOCK_TAGS and wrap_here():
                close_wrap()
            out.append(match.group(0))
            continue
        if wrap_here():
            if name in _BLOCK_TAGS:
                close_wrap()
            elif not wrapping:
                open_wrap()
        out.append(match.group(0))
        if name not in _VOID and not selfclosing:
            stack.append(name)
    text(body[at:])
    close_wrap()
    return "".join(out)
