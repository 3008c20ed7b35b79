"""MediaWiki's preprocessor tree of a wikitext, as the XML that `prop=revisions&rvprop=parsetree`
and `rvgeneratexml` return: `<root>` with `<template>`/`<tplarg>` (title and parts), `<comment>`,
`<ext>` (extension tags such as `<nowiki>` and `<pre>`), `<ignore>` and `<h>` headings.

The scan follows MediaWiki 1.39's hash preprocessor: a stack of open brackets and heading lines,
a pipe starting a new part inside `{{…}}`, the first `=` of a part splitting name and value, the
longest closing run that names an element (`}}` template, `}}}` template argument) and unclosed
brackets given back as text. Nodes are `(name, children)` tuples; attributes are children whose
name starts with `@`.
"""

from __future__ import annotations

import functools
import html
import re
from dataclasses import dataclass, field
from typing import Union

Node = Union[str, "Element"]


@dataclass(slots=True)
class Element:
    name: str
    children: list[Node] = field(default_factory=list)


# The parser's strip list (siteinfo `extensiontags`).
STRIP_TAGS = ("pre", "nowiki", "gallery", "indicator", "langconvert")

_RULES: dict[str, tuple[str, dict[int, str | None], int, int]] = {
    "{": ("}", {2: "template", 3: "tplarg"}, 2, 3),
    "[": ("]", {2: None}, 2, 2),
}
# How deep brackets (and headings) may nest, a run of braces closed bit by bit counting a level
# for each bit: past it an opening bracket is text. MediaWiki has no such bound; here every
# reader of the tree recurses through it, and a few thousand nested braces would exhaust
# Python's stack.
MAX_OPEN = 100
# What can start a node outside every template and argument when headings are not wanted: a
# single `{` or a `[[` there is text whatever follows.
_OUTSIDE = re.compile(r"\{\{|<")
# Inclusion tags whose closing tag may be left out: they then run to the end.
_ALLOW_MISSING_END = ("includeonly", "noinclude", "onlyinclude")


@dataclass(slots=True)
class _Part:
    out: list[Node] = field(default_factory=list)
    eqpos: int | None = None
    comment_end: int | None = None
    visual_end: int | None = None


@dataclass(slots=True)
class _Piece:
    open: str
    close: str
    count: int
    parts: list[_Part]
    line_start: bool = False
    start_pos: int = 0
    depth: int = 1  # how deep in the tree its content sits

    def flags(self) -> tuple[bool, bool, bool]:
        """(findPipe, findEquals, inHeading)."""
        find_pipe = self.open not in ("\n", "[")
        find_equals = find_pipe and len(self.parts) > 1 and self.parts[-1].eqpos is None
        return find_pipe, find_equals, self.open == "\n"

    def break_syntax(self, opening: int | None = None) -> list[Node]:
        if self.open == "\n":
            return ["", *self.parts[0].out]
        accum: list[Node] = [self.open * (self.count if opening is None else opening)]
        for index, part in enumerate(self.parts):
            if index:
                _literal(accum, "|")
            for node in part.out:
                if isinstance(node, str) and isinstance(accum[-1], str):
                    accum[-1] += node
                else:
                    accum.append(node)
        return accum


def _literal(accum: list[Node], text: str) -> None:
    if accum and isinstance(accum[-1], str):
        accum[-1] += text
    else:
        accum.append(text)


def _span(text: str, chars: str, start: int, limit: int | None = None) -> int:
    end = len(text) if limit is None else min(len(text), start + limit)
    k = start
    while k < end and text[k] in chars:
        k += 1
    return k - start


def _span_back(text: str, chars: str, before: int) -> int:
    """How many of `chars` end text[:before]."""
    k = before
    while k > 0 and text[k - 1] in chars:
        k -= 1
    return before - k


class _Scanner:
    """One pass of MediaWiki's hash preprocessor over a text: `run` finds the next character that
    can matter and hands it to the method for that construct, as `Preprocessor_Hash` does in its
    main loop. `accum` is where text goes now: the root, or the last part of the innermost open
    bracket or heading."""

    def __init__(self, text: str, for_inclusion: bool, headings: bool = True) -> None:
        # Without headings, brackets and line starts outside every `{{…}}` are plain text: no
        # template or argument node changes, and the scan skips from one `{{` or `<` to the next.
        self.headings = headings
        if for_inclusion:
            self.ignored_tags: tuple[str, ...] = ("includeonly", "/includeonly")
            self.ignored_elements: tuple[str, ...] = ("noinclude",)
            xmlish = (*STRIP_TAGS, "noinclude")
            self.only_include = "<onlyinclude>" in text and "</onlyinclude>" in text
        else:
            self.ignored_tags = ("noinclude", "/noinclude", "onlyinclude", "/onlyinclude")
            self.ignored_elements = ("includeonly",)
            xmlish = (*STRIP_TAGS, "includeonly")
            self.only_include = False
        names = "|".join(re.escape(n) for n in (*xmlish, *self.ignored_tags))
        self.elements = re.compile(rf"({names})(?:\s|/>|>)|(!--)", re.I)
        self.text = text
        self.length = len(text)
        self.i = 0
        self.root: list[Node] = []
        self.stack: list[_Piece] = []
        self.accum = self.root
        self.find_pipe = self.find_equals = self.in_heading = False
        self.closing = ""
        self.special = _special("", False, False)
        self.heading_index = 1
        # Once a search for `>` or for a closing tag has failed, later ones would fail too.
        self.no_more_gt = False
        self.no_more_closing: set[str] = set()
        self.find_only_include = self.only_include
        self.fake_line_start = True
        self.next_braces = self.next_angle = -1
        self._research()

    def run(self) -> Element:
        while True:
            if self.find_only_include and not self._skip_to_onlyinclude():
                break
            if self.fake_line_start:
                self._line_start("")
                continue
            if not self._step():
                break
        for piece in self.stack:
            _extend(self.root, piece.break_syntax())
        for node in self.root:
            if isinstance(node, Element) and node.name == "possible-h":
                node.name = "h"
        return Element("root", self.root)

    def _refresh(self) -> None:
        """The accumulator and the search flags of the innermost open piece."""
        if self.stack:
            self.accum = self.stack[-1].parts[-1].out
            self.closing = self.stack[-1].close
            self.find_pipe, self.find_equals, self.in_heading = self.stack[-1].flags()
        else:
            self.accum = self.root
            self.closing = ""
            self.find_pipe = self.find_equals = self.in_heading = False
        self._research()

    def _research(self) -> None:
        """The characters the scan stops at, which the innermost piece and its flags decide."""
        if not self.stack and not self.headings:
            self.special = _OUTSIDE
            return
        self.special = _special(self.closing, self.find_pipe, self.find_equals)

    def _skip_to_onlyinclude(self) -> bool:
        """Outside `<onlyinclude>` everything is ignored; False when no block is left."""
        text, i = self.text, self.i
        start = text.find("<onlyinclude>", i)
        if start < 0:
            self.accum.append(Element("ignore", [text[i:]]))
            return False
        end = start + len("<onlyinclude>")
        self.accum.append(Element("ignore", [text[i:end]]))
        self.i = end
        self.find_only_include = False
        return True

    def _step(self) -> bool:
        """Copy plain text up to the next special character and handle it; False at the end."""
        text, closing = self.text, self.closing
        if self.special is _OUTSIDE:
            i = self._outside()
        else:
            found = self.special.search(text, self.i)
            i = self.length if found is None else found.start()
        if i > self.i:
            _literal(self.accum, text[self.i : i])
            self.i = i
        if i >= self.length:
            if closing != "\n":
                return False
            self._line_end()
            return True
        cur = text[i]
        if cur == "|":
            self._pipe()
        elif cur == "=":
            self._equals()
        elif cur == "<":
            self._angle()
        elif cur == "\n":
            if self.in_heading:
                self._line_end()
            else:
                self._line_start(cur)
        elif text[i : i + 2] == closing:
            self._close(closing)
        elif cur == closing:
            self._close(cur)
        elif cur in _RULES:
            self._open(cur)
        else:
            if cur == "}":
                _literal(self.accum, cur)
            self.i += 1
        return True

    def _outside(self) -> int:
        """The next `{{` or `<` outside every piece, found with `str.find` (a regular expression
        would try each of the page's characters in turn)."""
        text, i = self.text, self.i
        if self.next_braces < i:
            found = text.find("{{", i)
            self.next_braces = self.length if found < 0 else found
        if self.next_angle < i:
            found = text.find("<", i)
            self.next_angle = self.length if found < 0 else found
        return min(self.next_braces, self.next_angle)

    def _angle(self) -> None:
        """`<`: the end of an `<onlyinclude>` block, a comment, an extension or ignored tag, or text."""
        text, i = self.text, self.i
        if self.only_include and text.startswith("</onlyinclude>", i):
            self.find_only_include = True
            return
        match = self.elements.match(text, i + 1)
        if match is None:
            _literal(self.accum, "<")
            self.i += 1
        elif match.group(2) == "!--":
            self._comment()
        else:
            self._tag(match.group(1))

    def _comment(self) -> None:
        """`<!--…-->`. A comment alone on its line takes the line's spaces and its newline with it
        (with any comments right after it), and the next line is read as a line start."""
        text, i, accum = self.text, self.i, self.accum
        end = text.find("-->", i + 4)
        if end < 0:
            accum.append(Element("comment", [text[i:]]))
            self.i = self.length
            return
        ws_start = i - _span_back(text, " \t", i) if i else 0
        ws_end = end + 2 + _span(text, " \t", end + 3)
        comments = [(ws_start, ws_end)]
        while text[ws_end + 1 : ws_end + 5] == "<!--":
            c = text.find("-->", ws_end + 4)
            if c < 0:
                break
            c = c + 2 + _span(text, " \t", c + 3)
            comments.append((ws_end + 1, c))
            ws_end = c
        if (
            ws_start > 0
            and text[ws_start - 1 : ws_start] == "\n"
            and (text[ws_end + 1 : ws_end + 2] == "\n")
        ):
            ws_length = i - ws_start
            if (
                ws_length > 0
                and accum
                and isinstance(accum[-1], str)
                and _span_back(accum[-1], " \t", len(accum[-1])) >= ws_length
            ):
                accum[-1] = accum[-1][:-ws_length]
            for start, stop in comments[:-1]:
                accum.append(Element("comment", [text[start : stop + 1]]))
            start_pos, end_pos = comments[-1][0], comments[-1][1] + 1
            self.fake_line_start = True
        else:
            start_pos, end_pos = i, end + 2
        if self.stack:
            part = self.stack[-1].parts[-1]
            if not (part.comment_end is not None and part.comment_end == ws_start - 1):
                part.visual_end = ws_start
            part.comment_end = end_pos
        self.i = end_pos + 1
        accum.append(Element("comment", [text[start_pos : end_pos + 1]]))

    def _tag(self, name: str) -> None:
        """An extension tag (`<nowiki>`, `<pre>` …) with its body, or an inclusion tag."""
        text, i = self.text, self.i
        lower = name.lower()
        attr_start = i + len(name) + 1
        tag_end = -1 if self.no_more_gt else text.find(">", attr_start)
        if tag_end < 0:
            self.no_more_gt = True
            _literal(self.accum, "<")
            self.i += 1
            return
        if lower in self.ignored_tags:
            self.accum.append(Element("ignore", [text[i : tag_end + 1]]))
            self.i = tag_end + 1
            return
        tag_start = i
        inner: str | None
        close: str | None
        if text[tag_end - 1] == "/":
            attr_end = tag_end - 1
            inner = close = None
            self.i = tag_end + 1
        else:
            attr_end = tag_end
            closing_tag = (
                None
                if name in self.no_more_closing
                else re.compile(rf"</{re.escape(name)}\s*>", re.I).search(text, tag_end + 1)
            )
            if closing_tag is not None:
                inner = text[tag_end + 1 : closing_tag.start()]
                self.i = closing_tag.end()
                close = closing_tag.group(0)
            elif name in _ALLOW_MISSING_END:
                inner = text[tag_end + 1 :]
                self.i = self.length
                close = None
            else:
                self.i = tag_end + 1
                _literal(self.accum, text[tag_start : tag_end + 1])
                self.no_more_closing.add(name)
                return
        if lower in self.ignored_elements:
            self.accum.append(Element("ignore", [text[tag_start : self.i]]))
            return
        attr = text[attr_start:attr_end] if attr_end > attr_start else ""
        children: list[Node] = [Element("name", [name]), Element("attr", [attr])]
        if inner is not None:
            children.append(Element("inner", [inner]))
        if close is not None:
            children.append(Element("close", [close]))
        self.accum.append(Element("ext", children))

    def _line_start(self, cur: str) -> None:
        """A new line (or the text's start): `=` runs there may open a heading."""
        if self.fake_line_start:
            self.fake_line_start = False
        else:
            _literal(self.accum, cur)
            self.i += 1
        if not self.headings and not self.stack:
            return
        count = _span(self.text, "=", self.i, 6)
        if count == 1 and self.find_equals:
            return
        depth = self._depth()
        if count > 0 and depth <= MAX_OPEN:
            heading = _Piece("\n", "\n", count, [_Part(["=" * count])], start_pos=self.i)
            heading.depth = depth
            self.stack.append(heading)
            self._refresh()
            self.i += count

    def _line_end(self) -> None:
        """The end of a line that opened with `=`: a heading if it also ends with `=`, after any
        trailing spaces and comments."""
        text = self.text
        piece = self.stack[-1]
        part = piece.parts[-1]
        search_start = self.i - _span_back(text, " \t", self.i)
        if part.comment_end is not None and search_start - 1 == part.comment_end:
            assert part.visual_end is not None
            search_start = part.visual_end
            search_start -= _span_back(text, " \t", search_start)
        count = piece.count
        equals = _span_back(text, "=", search_start)
        element: list[Node] = self.accum
        if equals > 0:
            if search_start - equals == piece.start_pos:
                count = 0 if equals < 3 else min(6, (equals - 1) // 2)
            else:
                count = min(equals, count)
            if count > 0:
                level = [Element("@level", [str(count)]), Element("@i", [str(self.heading_index)])]
                element = [Element("possible-h", [*level, *self.accum])]
                self.heading_index += 1
        self.stack.pop()
        self._refresh()
        _extend(self.accum, element)

    def _open(self, cur: str) -> None:
        """A run of `{` or `[`: long enough, it opens a piece; shorter, it is text."""
        end_char, _, minimum, _ = _RULES[cur]
        count = _span(self.text, cur, self.i)
        line_start = self.i > 0 and self.text[self.i - 1] == "\n"
        depth = self._depth()
        if count >= minimum and depth <= MAX_OPEN:
            piece = _Piece(cur, end_char, count, [_Part()], line_start=line_start, depth=depth)
            self.stack.append(piece)
            self._refresh()
        else:
            _literal(self.accum, cur * count)
        self.i += count

    def _depth(self) -> int:
        """How deep in the tree the content of a piece opened now would sit."""
        return self.stack[-1].depth + 1 if self.stack else 1

    def _close(self, cur: str) -> None:
        """A run of `}` or `]`: the longest count that names an element closes it (`}}}` a
        template argument, `}}` a template); unused opening brackets stay open or become text."""
        text, i = self.text, self.i
        piece = self.stack[-1]
        count = _span(text, cur, i, piece.count)
        _, rule_names, _, rule_max = _RULES[piece.open]
        if count > rule_max:
            matching = rule_max
        else:
            matching = count
            while matching > 0 and matching not in rule_names:
                matching -= 1
        if matching <= 0:
            _literal(self.accum, text[i : i + count])
            self.i += count
            return
        kind = rule_names[matching]
        element: list[Node]
        if kind is None:
            element = piece.break_syntax(matching)
            _literal(element, text[i : i + matching])
        else:
            element = [_bracket_element(piece, kind, matching)]
        self.i += matching
        self.stack.pop()
        if matching < piece.count:
            piece.parts = [_Part()]
            piece.count -= matching
            # What is left of the run wraps the element just closed: one level deeper.
            piece.depth += 1
            if piece.count >= _RULES[piece.open][2] and piece.depth <= MAX_OPEN:
                self.stack.append(piece)
            else:
                self._refresh()
                _literal(self.accum, piece.open * piece.count)
        self._refresh()
        _extend(self.accum, element)

    def _pipe(self) -> None:
        """`|` inside `{{…}}`: a new part, whose first `=` will split name and value."""
        self.stack[-1].parts.append(_Part())
        self._refresh()
        self.i += 1

    def _equals(self) -> None:
        """The first `=` of a part."""
        self.accum.append(Element("equals", ["="]))
        self.stack[-1].parts[-1].eqpos = len(self.accum) - 1
        self.find_equals = False
        self._research()
        self.i += 1


def _bracket_element(piece: _Piece, kind: str, matching: int) -> Element:
    """The `<template>` or `<tplarg>` of a closed piece: its title and its parts, named or
    numbered."""
    children: list[Node] = []
    if piece.count == matching and piece.line_start:
        children.append(Element("@lineStart", ["1"]))
    children.append(Element("title", piece.parts[0].out))
    index = 1
    for part in piece.parts[1:]:
        if part.eqpos is not None:
            name = Element("name", part.out[: part.eqpos])
            value = Element("value", part.out[part.eqpos + 1 :])
            children.append(Element("part", [name, part.out[part.eqpos], value]))
        else:
            number = Element("name", [Element("@index", [str(index)])])
            children.append(Element("part", [number, Element("value", part.out)]))
            index += 1
    return Element(kind, children)


@functools.lru_cache(maxsize=64)
def _special(closing: str, find_pipe: bool, find_equals: bool) -> re.Pattern[str]:
    """Any one of the characters that can matter inside a piece closed by `closing` (a handful
    of sets, so each is compiled once)."""
    search = "[{<\n" + closing + ("|" if find_pipe else "") + ("=" if find_equals else "")
    return re.compile("[" + re.escape(search) + "]")


def preprocess(text: str, for_inclusion: bool = False, headings: bool = True) -> Element:
    """The preprocessor tree of `text` (as the page itself, or as transcluded). Without
    `headings` there are no `<h>` nodes and `[[`/`]]` outside templates is text, which leaves
    every other node as it is: what template expansion and link tables need, at a fraction of
    the scan."""
    return _Scanner(text, for_inclusion, headings).run()


def _extend(accum: list[Node], nodes: list[Node]) -> None:
    """array_splice onto the end: strings stay separate nodes, as MediaWiki's tree keeps them."""
    accum.extend(nodes)


def source(node: Node, *, drop_comments: bool) -> str:
    """The wikitext a preprocessor node stands for; with `drop_comments`, comments and ignored
    parts are left out (what `Parser::preprocess` keeps)."""
    if isinstance(node, str):
        return node
    name = node.name
    if name.startswith("@"):
        return ""
    if name in ("comment", "ignore"):
        return "" if drop_comments else "".join(c for c in node.children if isinstance(c, str))
    if name == "ext":
        parts = {c.name: c for c in node.children if isinstance(c, Element)}
        attr = source(parts["attr"], drop_comments=False)
        tag = source(parts["name"], drop_comments=False)
        if "inner" not in parts:
            return f"<{tag}{attr}/>"
        body = source(parts["inner"], drop_comments=False)
        close = source(parts["close"], drop_comments=False) if "close" in parts else ""
        return f"<{tag}{attr}>{body}{close}"
    if name == "template":
        return "{{" + _joined(node, drop_comments) + "}}"
    if name == "tplarg":
        return "{{{" + _joined(node, drop_comments) + "}}}"
    return "".join(source(c, drop_comments=drop_comments) for c in node.children)


def _joined(node: Element, drop_comments: bool) -> str:
    pieces: list[str] = []
    for child in node.children:
        if isinstance(child, Element) and child.name == "title":
            pieces.append(source(child, drop_comments=drop_comments))
        elif isinstance(child, Element) and child.name == "part":
            pieces.append("|" + source(child, drop_comments=drop_comments))
    return "".join(pieces)


def to_xml(node: Node) -> str:
    """`PPNode_Hash_Tree::__toString`: the XML MediaWiki returns as `parsetree`."""
    if isinstance(node, str):
        return _escape(node)
    attributes = ""
    inner = ""
    for child in node.children:
        if isinstance(child, Element) and child.name.startswith("@"):
            value = "".join(c for c in child.children if isinstance(c, str))
            attributes += f' {child.name[1:]}="{_escape(value)}"'
        else:
            inner += to_xml(child)
    if inner == "":
        return f"<{node.name}{attributes}/>"
    return f"<{node.name}{attributes}>{inner}</{node.name}>"


def _escape(text: str) -> str:
    """htmlspecialchars with ENT_COMPAT: double quotes escaped, apostrophes kept."""
    return html.escape(text, quote=False).replace('"', "&quot;")


def parsetree(text: str) -> str:
    return to_xml(preprocess(text))
