"""The table of contents of a rendered page, as MediaWiki 1.39's Parser::finalizeHeadings builds
it: shown for four headings or more, forced by `__FORCETOC__` or placed by `__TOC__`, suppressed by
`__NOTOC__` (unless `__TOC__` places it); numbered by relative heading depth; heading ids made
unique (`One`, `One_2`) on the way; placed before the first heading."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MARKER = '<div id="mw-toc-position"></div>'
_SWITCH = re.compile(r"__(NOTOC|FORCETOC|TOC)__")
_HEADING = re.compile(r'<h([1-6])><span class="mw-headline" id="([^"]*)">(.*?)</span></h\1>', re.S)
# Tags a TOC line keeps (Parser::finalizeHeadings strips the others, links included).
_KEPT = re.compile(r"</?(?:sup|sub|bdi|i|b|s|strike|del|ins)\b[^>]*>", re.I)
_ANY_TAG = re.compile(r"<[^>]*>")
_TITLE = (
    '<div id="toc" class="toc" role="navigation" aria-labelledby="mw-toc-heading">'
    '<input type="checkbox" role="button" id="toctogglecheckbox" class="toctogglecheckbox" '
    'style="display:none" /><div class="toctitle" lang="en" dir="ltr">'
    '<h2 id="mw-toc-heading">Contents</h2><span class="toctogglespan">'
    '<label class="toctogglelabel" for="toctogglecheckbox"></label></span></div>'
)


@dataclass
class TocSwitches:
    notoc: bool = False
    forcetoc: bool = False
    position: bool = False  # __TOC__ was given (its first place holds the MARKER)


def take_switches(text: str, hold: Callable[[str], str]) -> tuple[str, TocSwitches]:
    """Remove the three magic words; the first `__TOC__` becomes the held MARKER on its own
    line (a block, so it never sits in a paragraph)."""
    switches = TocSwitches()

    def replace(match: re.Match[str]) -> str:
        word = match.group(1)
        if word == "NOTOC":
            switches.notoc = True
        elif word == "FORCETOC":
            switches.forcetoc = True
        elif not switches.position:
            switches.position = True
            return "\n" + hold(MARKER) + "\n"
        return ""

    return _SWITCH.sub(replace, text), switches


def _toc_text(inner: str) -> str:
    return _ANY_TAG.sub(lambda m: m.group(0) if _KEPT.fullmatch(m.group(0)) else "", inner).strip()


def _build(headings: list[tuple[int, str, str]]) -> str:
    """Linker::tocIndent/tocLine/tocUnindent over the headings (level, anchor, inner HTML)."""
    toc: list[str] = []
    toclevel = prevlevel = prevtoclevel = 0
    level_count: dict[int, int] = {}
    sublevel_count: dict[int, int] = {}
    for index, (level, ident, inner) in enumerate(headings, start=1):
        if level > prevlevel:
            toclevel += 1
            sublevel_count[toclevel] = 0
            prevtoclevel = toclevel
            toc.append("\n<ul>\n")
        elif level < prevlevel and toclevel > 1:
            found = 0
            for i in range(toclevel, 0, -1):
                if level_count.get(i) == level:
                    found = i
                    break
                if level_count.get(i, 0) < level:
                    found = i + 1
                    break
            toclevel = found or 1
            toc.append("</li>\n" + "</ul>\n</li>\n" * max(0, prevtoclevel - toclevel))
            prevtoclevel = toclevel
        else:
            toc.append("</li>\n")
        level_count[toclevel] = level
        sublevel_count[toclevel] = sublevel_count.get(toclevel, 0) + 1
        number = ".".join(
            str(sublevel_count[i]) for i in range(1, toclevel + 1) if sublevel_count.get(i)
        )
        toc.append(
            f'<li class="toclevel-{toclevel} tocsection-{index}"><a href="#{ident}">'
            f'<span class="tocnumber">{number}</span> <span class="toctext">{_toc_text(inner)}'
            "</span></a>"
        )
        prevlevel = level
    toc.append("</li>\n" + "</ul>\n</li>\n" * max(0, prevtoclevel - 1))
    return _TITLE + "".join(toc) + "</ul>\n</div>\n"


def add_toc(body: str, switches: TocSwitches) -> str:
    """The page body with unique heading ids and, when it is due, the table of contents."""
    headings: list[tuple[int, str, str]] = []
    seen: dict[str, int] = {}

    def unique(match: re.Match[str]) -> str:
        level, ident, inner = int(match.group(1)), match.group(2), match.group(3)
        key = ident.lower()
        if key in seen:
            seen[key] += 1
            ident = f"{ident}_{seen[key]}"
        else:
            seen[key] = 1
        headings.append((level, ident, inner))
        return f'<h{level}><span class="mw-headline" id="{ident}">{inner}</span></h{level}>'

    body = _HEADING.sub(unique, body)
    wanted = len(headings) >= 4 or switches.forcetoc or switches.position
    if not headings or not wanted or (switches.notoc and not switches.position):
        return body.replace(MARKER + "\n", "").replace(MARKER, "")
    toc = _build(headings)
    if MARKER in body:
        return body.replace(MARKER, toc, 1)
    first = _HEADING.search(body)
    assert first is not None
    return body[: first.start()] + toc + "\n" + body[first.start() :]
