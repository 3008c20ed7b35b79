"""Paragraphs and lists as MediaWiki 1.39 makes them: BlockLevelPass line by line (lists from
the `*#;:` prefixes, `; term : definition`; in paragraph mode `<p>`
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
    """BlockLevelPass::execute line by line: list prefixes (`*`, `#`, `;`, `:`) open, continue
    and close lists, other lines go to paragraph mode; `line` takes the line to write and the
    same line with held fragments released (what the tag tests look at)."""

    out: list[str] = field(default_factory=list)
    last: str = ""  # "", "p" or "pre": the open paragraph
    pending: str | None = None
    in_block: bool = False
    in_pre: bool = False
    in_blockquote: bool = False
    last_prefix: str = ""  # the list prefix of the last list line, `;` read as `:`
    prefix: str = ""  # this line's, the same way (what the end closes)
    dt_open: bool = False

    def close(self, at_end: bool = False) -> str:
        closing = ""
        if self.last:
            closing = f"</{self.last}>" + ("" if at_end else "\n")
        self.last = ""
        return closing

    def line(self, text: str, seen: str, last_line: bool) -> None:
        pre_close = re.search(r"</pre", seen, re.I) is not None
        pre_open = re.search(r"<pre", seen, re.I) is not None
        prefix = ""
        if not self.in_pre:
            prefix = text[: len(text) - len(text.lstrip("*#:;"))]
            text = text[len(prefix) :]
            seen = seen.lstrip("*#:;")
            if ";" in prefix:
                text = seen  # the term's colon is looked for among the tags it holds
            self.in_pre = pre_open
        self.prefix = prefix.replace(";", ":")
        if prefix or self.last_prefix:
            text = self._list(prefix, text)
        if not prefix:
            text = self._paragraph(text, seen, pre_open, pre_close)
        if pre_close and self.in_pre:
            self.in_pre = False
        if self.pending is None:
            if prefix:
                self.out.append(text.strip(_PHP_TRIM))
            else:
                self.out.append(text)
                if not last_line or self.last:
                    self.out.append("\n")

    def _list(self, prefix: str, text: str) -> str:
        """Opens, continues or closes lists for a line's prefix; returns the item's text (the
        definition, when a `;` term has one after a colon)."""
        self.pending = None
        if prefix and self.last_prefix == self.prefix:
            self.out.append(self._next_item(prefix[-1]))
            if prefix[-1] == ";":
                text = self._term(text)
            return text
        common = 0
        while (
            common < min(len(prefix), len(self.last_prefix))
            and prefix[common] == self.last_prefix[common]
        ):
            common += 1
        for char in reversed(self.last_prefix[common:]):
            self.out.append(self._close_list(char))
        if len(prefix) <= common and common > 0:
            self.out.append(self._next_item(prefix[common - 1]))
        if self.dt_open and common > 0 and prefix[common - 1] == ":":
            self.out.append(self._next_item(":"))
        if self.last_prefix and len(prefix) > common:
            self.out.append("\n")
        for char in prefix[common:]:
            self.out.append(self._open_list(char))
            if char == ";":
                text = self._term(text)
        if not prefix and self.last_prefix:
            self.out.append("\n")
        self.last_prefix = self.prefix
        return text

    def _term(self, text: str) -> str:
        """`; term : definition`: split at the first colon outside any element."""
        colon = find_colon(text)
        if colon is None:
            return text
        self.out.append(text[:colon].strip(_PHP_TRIM) + self._next_item(":"))
        return text[colon + 1 :]

    def _open_list(self, char: str) -> str:
        opened = self.close()
        self.in_pre = False
        if char == ";":
            self.dt_open = True
        return opened + _OPEN_LIST[char]

    def _next_item(self, char: str) -> str:
        if char in "*#":
            return "</li>\n<li>"
        closing = "</dt>\n" if self.dt_open else "</dd>\n"
        self.dt_open = char == ";"
        return closing + ("<dt>" if char == ";" else "<dd>")

    def _close_list(self, char: str) -> str:
        if char in "*#":
            return "</li></ul>" if char == "*" else "</li></ol>"
        closing = "</dt></dl>" if self.dt_open else "</dd></dl>"
        self.dt_open = False
        return closing

    def _paragraph(self, text: str, seen: str, pre_open: bool, pre_close: bool) -> str:
        """Paragraph mode for a line without a list prefix."""
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
        return text

    def finish(self) -> str:
        for n, char in enumerate(reversed(self.prefix)):
            self.out.append(self._close_list(char))
            if n == len(self.prefix) - 1 and self.last:
                self.out.append("\n")
        self.out.append(self.close(at_end=True))
        return "".join(self.out)


_OPEN_LIST = {"*": "<ul><li>", "#": "<ol><li>", ":": "<dl><dd>", ";": "<dl><dt>"}


def find_colon(text: str) -> int | None:
    """BlockLevelPass::findColonNoLinks: the first `:` not inside an element (nor a tag or a
    comment); None when there is none or a tag closes more than was opened."""
    level = 0
    state = "text"
    i = 0
    while i < len(text):
        char = text[i]
        if state == "text":
            if char == ":" and level == 0:
                return i
            if char != "<":
                colon, lt = text.find(":", i), text.find("<", i)
                if colon == -1 or (lt == -1 and level > 0):
                    return None
                if level == 0 and (lt == -1 or colon < lt):
                    return colon
                i = lt
            state = "tagstart"
        elif state == "tagstart":
            state = {"/": "closetag", "!": "comment", ">": "text"}.get(char, "tag")
        elif state == "tag":
            if char == ">":
                level += 1
                state = "text"
            elif char == "/":
                state = "tagslash"
        elif state == "tagslash":
            state = "text" if char == ">" else "tag"
        elif state == "closetag":
            if char == ">":
                if level == 0:
                    return None
                level -= 1
                state = "text"
        elif state == "comment":
            state = "commentdash" if char == "-" else "comment"
        elif state == "commentdash":
            state = "commentdashdash" if char == "-" else "comment"
        else:  # commentdashdash
            state = "text" if char == ">" else "comment"
        i += 1
    return None


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


_EMPTY = re.compile(r"<(li|p|tr)>([\t\n\x0c\r ]*)</\1>")
_VOID_TAG = re.compile(r"<(br|hr|wbr)\b([^>]*?)\s*/?>")


def serialize(body: str) -> str:
    """What RemexCompatFormatter writes that the passes before it did not: `<br />` for every
    void tag (a `<br>` stays as written until then: the term colon search counts it as an open
    element), and class="mw-empty-elt" on an `<li>`, `<p>` or `<tr>` without attributes
    holding only whitespace."""
    body = _VOID_TAG.sub(r"<\1\2 />", body)
    return _EMPTY.sub(r'<\1 class="mw-empty-elt">\2</\1>', body)
