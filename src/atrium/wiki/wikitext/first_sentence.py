"""A page's first sentence as plain text, for search suggestions: the wikitext's first paragraph
of prose with templates, tables, files, references, comments and markup removed, links reduced
to their text, cut after the first full stop (or at a length limit)."""

from __future__ import annotations

import html
import re

_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
_REF = re.compile(r"<ref\b[^>/]*(?:/>|>.*?</ref\s*>)", re.S | re.I)
_TAGGED = re.compile(r"<(nowiki|pre|gallery|math|syntaxhighlight|source)\b.*?</\1\s*>", re.S | re.I)
_TEMPLATE = re.compile(r"\{\{(?:[^{}]|\{(?!\{)|\}(?!\}))*\}\}")
_TABLE = re.compile(r"^\{\|.*?^\|\}", re.S | re.M)
_FILE = re.compile(r"\[\[(?:File|Image|Media|Category):(?:[^\[\]]|\[\[[^\[\]]*\]\])*\]\]", re.I)
_LINK = re.compile(r"\[\[(?:[^|\[\]]*\|)?([^\[\]]*)\]\]")
_EXTERNAL = re.compile(r"\[(?:https?:)?//[^\s\]]+\s*([^\]]*)\]")
_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
_QUOTES = re.compile(r"'{2,}")
_SENTENCE = re.compile(r"^(.+?[.!?])(?=\s|$)", re.S)
MAX_LENGTH = 160


def first_sentence(wikitext: str) -> str:
    text = _COMMENT.sub("", wikitext)
    text = _TAGGED.sub("", _REF.sub("", text))
    for _ in range(5):  # nested templates, innermost first
        stripped = _TEMPLATE.sub("", text)
        if stripped == text:
            break
        text = stripped
    text = _TABLE.sub("", text)
    text = _FILE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _EXTERNAL.sub(r"\1", text)
    text = _QUOTES.sub("", _TAG.sub("", text))
    for block in re.split(r"\n\s*\n", text):
        lines = [
            line.strip()
            for line in block.splitlines()
            if line.strip()
            and not line.lstrip().startswith(("=", "#", "*", ":", ";", "|", "!", "__"))
        ]
        if not lines:
            continue
        prose = html.unescape(" ".join(lines))
        prose = re.sub(r"\s+", " ", prose).strip()
        found = _SENTENCE.match(prose)
        sentence = found.group(1) if found else prose
        if len(sentence) > MAX_LENGTH:
            sentence = sentence[: MAX_LENGTH - 1].rsplit(" ", 1)[0] + "…"
        return sentence
    return ""
