"""Block-level behaviour where Zulip departs from Python-Markdown.

- Lists may hang directly off a paragraph (a blank line is inserted before them),
  nest with 2-space indents, and never mix bullets with numbers ("sane lists").
- `#` headings need a space after the hashes; `#hashtag` stays a paragraph.
- Each `>` quote is its own blockquote, an empty `>` is not a quote, and
  mentions inside a quote are silenced (quoting someone does not notify them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeVar
from xml.etree.ElementTree import Element, SubElement

from markdown.blockparser import BlockParser
from markdown.blockprocessors import (
    BlockQuoteProcessor as _UpstreamQuote,
)
from markdown.blockprocessors import (
    HashHeaderProcessor as _UpstreamHashHeader,
)
from markdown.blockprocessors import (
    ListIndentProcessor as _UpstreamListIndent,
)
from markdown.extensions.sane_lists import SaneOListProcessor, SaneUListProcessor
from markdown.preprocessors import Preprocessor

from atrium.chat.markdown.code import FENCE_RE
from atrium.chat.markdown.mentions import GROUP_MENTION_RE, USER_MENTION_RE

_P = TypeVar("_P")


def _with_tab_length_2(parser: BlockParser, build: type[_P]) -> _P:
    # The list processors read `tab_length` once, when built: 2 makes nested
    # lists work off 2-space indents while indented code keeps 4.
    parser.md.tab_length = 2
    try:
        return build(parser)  # type: ignore[call-arg]
    finally:
        parser.md.tab_length = 4


def olist_processor(parser: BlockParser) -> SaneOListProcessor:
    return _with_tab_length_2(parser, SaneOListProcessor)


def ulist_processor(parser: BlockParser) -> SaneUListProcessor:
    return _with_tab_length_2(parser, SaneUListProcessor)


def list_indent_processor(parser: BlockParser) -> _UpstreamListIndent:
    return _with_tab_length_2(parser, _UpstreamListIndent)


class HashHeaderProcessor(_UpstreamHashHeader):  # type: ignore[misc]
    RE = re.compile(r"(?:^|\n)(?P<level>#{1,6})\s(?P<header>(?:\\.|[^\\])*?)#*(?:\n|$)")


class BlockQuoteProcessor(_UpstreamQuote):  # type: ignore[misc]
    # A line of only `>` (and spaces) does not start a quote on its own.
    RE = re.compile(r"(^|\n)(?!(?:[ ]{0,3}>\s*(?:$|\n))*(?:$|\n))[ ]{0,3}>[ ]?(.*)")

    def run(self, parent: Element, blocks: list[str]) -> None:
        block = blocks.pop(0)
        m = self.RE.search(block)
        if m:
            self.parser.parseBlocks(parent, [block[: m.start()]])
            block = "\n".join(self.clean(line) for line in block[m.start() :].split("\n"))
        # Unlike upstream, never continue the previous blockquote: a blank line
        # between two quotes means two quotes.
        quote = SubElement(parent, "blockquote")
        self.parser.state.set("blockquote")
        self.parser.parseChunk(quote, block)
        self.parser.state.reset()

    def clean(self, line: str) -> str:
        line = USER_MENTION_RE.sub(lambda m: "@_**{}**".format(m.group("match")), line)
        line = GROUP_MENTION_RE.sub(lambda m: "@_*{}*".format(m.group("match")), line)
        return str(super().clean(line))


@dataclass
class _Fence:
    fence: str
    is_code: bool


class HangingListPreprocessor(Preprocessor):  # type: ignore[misc]
    """Inserts the blank line Markdown wants before a list that follows a paragraph."""

    LI_RE = re.compile(r"^[ ]*([*+-]|\d\.)[ ]+(.*)")

    def run(self, lines: list[str]) -> list[str]:
        out = lines[:]
        inserted = 0
        open_fences: list[_Fence] = []
        in_code = False
        li_re = self.LI_RE
        for i in range(len(lines) - 1):
            line = lines[i]
            if line[:1] in ("`", "~"):
                m = FENCE_RE.match(line)
                if m:
                    fence, lang = m.group("fence"), m.group("lang")
                    if not lang and open_fences and open_fences[-1].fence == fence:
                        open_fences.pop()
                    else:
                        open_fences.append(_Fence(fence, lang not in ("quote", "quoted")))
                    in_code = any(f.is_code for f in open_fences)
            if in_code or not line:
                continue
            li2 = li_re.match(lines[i + 1])
            if li2 is None:
                continue
            li1 = li_re.match(line)
            if li1 is None or (len(li1.group(1)) == 1) != (len(li2.group(1)) == 1):
                out.insert(i + inserted + 1, "")
                inserted += 1
        return out
