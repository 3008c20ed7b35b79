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

import html
import re
from dataclasses import dataclass, field
from typing import Union

Node = Union[str, "Element"]


@dataclass
class Element:
    name: str
    children: list[Node] = field(default_factory=list)


# The parser's strip list (siteinfo `extensiontags`).
STRIP_TAGS = ("pre", "nowiki", "gallery", "indicator", "langconvert")

_RULES: dict[str, tuple[str, dict[int, str | None], int, int]] = {
    "{": ("}", {2: "template", 3: "tplarg"}, 2, 3),
    "[": ("]", {2: None}, 2, 2),
}


@dataclass
class _Part:
    out: list[Node] = field(default_factory=list)
    eqpos: int | None = None
    comment_end: int | None = None
    visual_end: int | None = None


@dataclass
class _Piece:
    open: str
    close: str
    count: int
    parts: list[_Part]
    line_start: bool = False
    start_pos: int = 0

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


def preprocess(text: str, for_inclusion: bool = False) -> Element:
    """The preprocessor tree of `text` (as the page itself, or as transcluded)."""
    ignored_tags: tuple[str, ...]
    if for_inclusion:
        ignored_tags = ("includeonly", "/includeonly")
        ignored_elements = ("noinclude",)
        xmlish = (*STRIP_TAGS, "noinclude")
        only_include = "<onlyinclude>" in text and "</onlyinclude>" in text
    else:
        ignored_tags = ("noinclude", "/noinclude", "onlyinclude", "/onlyinclude")
        ignored_elements = ("includeonly",)
        xmlish = (*STRIP_TAGS, "includeonly")
        only_include = False
    allow_missing_end = ("includeonly", "noinclude", "onlyinclude")
    names = "|".join(re.escape(n) for n in (*xmlish, *ignored_tags))
    elements = re.compile(rf"({names})(?:\s|/>|>)|(!--)", re.I)
    root: list[Node] = []
    stack: list[_Piece] = []

    def accum_of() -> list[Node]:
        return stack[-1].parts[-1].out if stack else root

    def flags() -> tuple[bool, bool, bool]:
        return stack[-1].flags() if stack else (False, False, False)

    accum = root
    find_pipe = find_equals = in_heading = False
    heading_index = 1
    no_more_gt = False
    no_more_closing: set[str] = set()
    find_only_include = only_include
    fake_line_start = True
    length = len(text)
    i = 0
    while True:
        if find_only_include:
            start = text.find("<onlyinclude>", i)
            if start < 0:
                accum.append(Element("ignore", [text[i:]]))
                break
            end = start + len("<onlyinclude>")
            accum.append(Element("ignore", [text[i:end]]))
            i = end
            find_only_include = False
        cur = ""
        if fake_line_start:
            found = "line-start"
        else:
            closing = stack[-1].close if stack else ""
            search = "[{<\n" + closing + ("|" if find_pipe else "") + ("=" if find_equals else "")
            k = i
            while k < length and text[k] not in search:
                k += 1
            if k > i:
                _literal(accum, text[i:k])
                i = k
            if i >= length:
                if closing == "\n":
                    found = "line-end"
                else:
                    break
            else:
                cur = text[i]
                two = text[i : i + 2]
                if cur == "|":
                    found = "pipe"
                elif cur == "=":
                    found = "equals"
                elif cur == "<":
                    found = "angle"
                elif cur == "\n":
                    found = "line-end" if in_heading else "line-start"
                elif two == closing:
                    found, cur = "close", two
                elif cur == closing:
                    found = "close"
                elif cur in _RULES:
                    found = "open"
                else:
                    if cur == "}":
                        _literal(accum, cur)
                    i += 1
                    continue
        if found == "angle":
            if only_include and text.startswith("</onlyinclude>", i):
                find_only_include = True
                continue
            match = elements.match(text, i + 1)
            if match is None:
                _literal(accum, "<")
                i += 1
                continue
            if match.group(2) == "!--":
                end = text.find("-->", i + 4)
                if end < 0:
                    accum.append(Element("comment", [text[i:]]))
                    i = length
                    continue
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
                    fake_line_start = True
                else:
                    start_pos, end_pos = i, end + 2
                if stack:
                    part = stack[-1].parts[-1]
                    if not (part.comment_end is not None and part.comment_end == ws_start - 1):
                        part.visual_end = ws_start
                    part.comment_end = end_pos
                i = end_pos + 1
                accum.append(Element("comment", [text[start_pos : end_pos + 1]]))
                continue
            name = match.group(1)
            lower = name.lower()
            attr_start = i + len(name) + 1
            tag_end = -1 if no_more_gt else text.find(">", attr_start)
            if tag_end < 0:
                no_more_gt = True
                _literal(accum, "<")
                i += 1
                continue
            if lower in ignored_tags:
                accum.append(Element("ignore", [text[i : tag_end + 1]]))
                i = tag_end + 1
                continue
            tag_start = i
            inner: str | None
            close: str | None
            if text[tag_end - 1] == "/":
                attr_end = tag_end - 1
                inner = close = None
                i = tag_end + 1
            else:
                attr_end = tag_end
                closing_tag = (
                    None
                    if name in no_more_closing
                    else re.compile(rf"</{re.escape(name)}\s*>", re.I).search(text, tag_end + 1)
                )
                if closing_tag is not None:
                    inner = text[tag_end + 1 : closing_tag.start()]
                    i = closing_tag.end()
                    close = closing_tag.group(0)
                elif name in allow_missing_end:
                    inner = text[tag_end + 1 :]
                    i = length
                    close = None
                else:
                    i = tag_end + 1
                    _literal(accum, text[tag_start : tag_end + 1])
                    no_more_closing.add(name)
                    continue
            if lower in ignored_elements:
                accum.append(Element("ignore", [text[tag_start:i]]))
                continue
            attr = text[attr_start:attr_end] if attr_end > attr_start else ""
            children: list[Node] = [Element("name", [name]), Element("attr", [attr])]
            if inner is not None:
                children.append(Element("inner", [inner]))
            if close is not None:
                children.append(Element("close", [close]))
            accum.append(Element("ext", children))
        elif found == "line-start":
            if fake_line_start:
                fake_line_start = False
            else:
                _literal(accum, cur)
                i += 1
            count = _span(text, "=", i, 6)
            if count == 1 and find_equals:
                pass
            elif count > 0:
                stack.append(_Piece("\n", "\n", count, [_Part(["=" * count])], start_pos=i))
                accum = accum_of()
                find_pipe, find_equals, in_heading = flags()
                i += count
        elif found == "line-end":
            piece = stack[-1]
            part = piece.parts[-1]
            search_start = i - _span_back(text, " \t", i)
            if part.comment_end is not None and search_start - 1 == part.comment_end:
                assert part.visual_end is not None
                search_start = part.visual_end
                search_start -= _span_back(text, " \t", search_start)
            count = piece.count
            equals = _span_back(text, "=", search_start)
            element: list[Node]
            if equals > 0:
                if search_start - equals == piece.start_pos:
                    count = 0 if equals < 3 else min(6, (equals - 1) // 2)
                else:
                    count = min(equals, count)
                if count > 0:
                    heading = Element(
                        "possible-h",
                        [
                            Element("@level", [str(count)]),
                            Element("@i", [str(heading_index)]),
                            *accum,
                        ],
                    )
                    heading_index += 1
                    element = [heading]
                else:
                    element = accum
            else:
                element = accum
            stack.pop()
            accum = accum_of()
            find_pipe, find_equals, in_heading = flags()
            _extend(accum, element)
        elif found == "open":
            end_char, _, minimum, _ = _RULES[cur]
            count = _span(text, cur, i)
            line_start = i > 0 and text[i - 1] == "\n"
            if count >= minimum:
                stack.append(_Piece(cur, end_char, count, [_Part()], line_start=line_start))
                accum = accum_of()
                find_pipe, find_equals, in_heading = flags()
            else:
                _literal(accum, cur * count)
            i += count
        elif found == "close":
            piece = stack[-1]
            max_count = piece.count
            count = _span(text, cur, i, max_count)
            _, rule_names, _, rule_max = _RULES[piece.open]
            if count > rule_max:
                matching = rule_max
            else:
                matching = count
                while matching > 0 and matching not in rule_names:
                    matching -= 1
            if matching <= 0:
                _literal(accum, text[i : i + count])
                i += count
                continue
            kind = rule_names[matching]
            if kind is None:
                element = piece.break_syntax(matching)
                _literal(element, text[i : i + matching])
            else:
                children = []
                if max_count == matching and piece.line_start:
                    children.append(Element("@lineStart", ["1"]))
                children.append(Element("title", piece.parts[0].out))
                index = 1
                for part in piece.parts[1:]:
                    if part.eqpos is not None:
                        children.append(
                            Element(
                                "part",
                                [
                                    Element("name", part.out[: part.eqpos]),
                                    part.out[part.eqpos],
                                    Element("value", part.out[part.eqpos + 1 :]),
                                ],
                            )
                        )
                    else:
                        children.append(
                            Element(
                                "part",
                                [
                                    Element("name", [Element("@index", [str(index)])]),
                                    Element("value", part.out),
                                ],
                            )
                        )
                        index += 1
                element = [Element(kind, children)]
            i += matching
            stack.pop()
            accum = accum_of()
            if matching < piece.count:
                piece.parts = [_Part()]
                piece.count -= matching
                if piece.count >= _RULES[piece.open][2]:
                    stack.append(piece)
                    accum = accum_of()
                else:
                    _literal(accum, piece.open * piece.count)
            find_pipe, find_equals, in_heading = flags()
            _extend(accum, element)
        elif found == "pipe":
            find_equals = True
            stack[-1].parts.append(_Part())
            accum = accum_of()
            i += 1
        elif found == "equals":
            find_equals = False
            accum.append(Element("equals", ["="]))
            stack[-1].parts[-1].eqpos = len(accum) - 1
            i += 1
    for piece in stack:
        _extend(root, piece.break_syntax())
    for node in root:
        if isinstance(node, Element) and node.name == "possible-h":
            node.name = "h"
    return Element("root", root)


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
    inner = "".join(source(c, drop_comments=drop_comments) for c in node.children)
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
    return inner


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
