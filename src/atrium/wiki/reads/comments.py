"""Edit summaries and log reasons as HTML, as MediaWiki's CommentFormatter (Linker::formatComment)
draws them: the text escaped, each `/* Section */` autocomment a "→Section" link to that section
of the page the summary is about, and `[[links]]` blue or red as their pages exist. Many
summaries are formatted at once, with one look-up of the pages they link to."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from urllib.parse import quote

from atrium.core.db import Conn
from atrium.wiki.reads.page_view import link_states
from atrium.wiki.site import Site
from atrium.wiki.titles import InvalidTitle, Title

_LINK = re.compile(r"\[\[:?([^\[\]|]+)(?:\|([^\[\]]*))?\]\]")
# An autocomment, with whether text comes before and after it (CommentParser::doSectionLinks).
_AUTO = re.compile(r"(?:(?<=(.)))?/\*\s*(.*?)\s*\*/(?:(?=(.)))?", re.S)
_SAFE = ":/!$()*,;@~"
ARROW = "\u2192\u200e"  # the content language's arrow and direction mark


def _href(site: Site, title: Title, fragment: str = "") -> str:
    key = quote(site.parser.prefixed_dbkey(title.ns, title.dbkey), safe=_SAFE)
    anchor = "#" + quote(fragment, safe=_SAFE + "%") if fragment else ""
    return html.escape(f"/wiki/{key}{anchor}")


def _section_links(site: Site, escaped: str, page: Title | None) -> str:
    def auto(match: re.Match[str]) -> str:
        before, text, after = match.group(1), match.group(2), match.group(3)
        # The text may hold [[ ]] that must not become links here.
        shown = text.replace("[[", "&#91;[")
        section = html.unescape(text.replace("[[:", "").replace("[[", "").replace("]]", ""))
        fragment = re.sub(r"[ \t\n\r\f\v_]+", "_", section.strip())
        if page is not None and fragment:
            name = html.escape(site.parser.prefixed_text(page.ns, page.dbkey))
            shown = f'<a href="{_href(site, page, fragment)}" title="{name}">{ARROW}{shown}</a>'
        if not shown:
            return match.group(0)
        prefix = "- " if before else ""
        separator = ": " if after else ""
        return f'{prefix}<span class="autocomment">{shown}{separator}</span>'

    return _AUTO.sub(auto, escaped)


def _wanted_links(site: Site, escaped: str) -> dict[str, Title]:
    wanted: dict[str, Title] = {}
    for match in _LINK.finditer(escaped):
        try:
            title = site.parser.parse(html.unescape(match.group(1)).strip())
        except InvalidTitle:
            continue
        if title.dbkey and not title.interwiki and title.ns >= -1:
            wanted[match.group(1)] = Title(title.ns, title.dbkey)
    return wanted


def format_comments(
    conn: Conn, site: Site, comments: Sequence[tuple[str, Title | None]]
) -> list[str]:
    """Each (summary, the page it is about or None) as HTML, in order."""
    escaped = [
        _section_links(site, html.escape(text, quote=False), page) for text, page in comments
    ]
    wanted = [_wanted_links(site, each) for each in escaped]
    targets = {(t.ns, t.dbkey) for links in wanted for t in links.values() if t.ns >= 0}
    existing, _ = link_states(conn, targets) if targets else (set(), set())

    def linker(found: dict[str, Title]) -> Callable[[re.Match[str]], str]:
        def link(match: re.Match[str]) -> str:
            title = found.get(match.group(1))
            if title is None:
                return match.group(0)
            label = match.group(2) if match.group(2) is not None else match.group(1)
            name = html.escape(site.parser.prefixed_text(title.ns, title.dbkey))
            if title.ns < 0 or (title.ns, title.dbkey) in existing:
                return f'<a href="{_href(site, title)}" title="{name}">{label}</a>'
            key = quote(site.parser.prefixed_dbkey(title.ns, title.dbkey), safe=_SAFE)
            href = f"/w/index.php?title={html.escape(key)}&amp;action=edit&amp;redlink=1"
            return f'<a href="{href}" class="new" title="{name} (page does not exist)">{label}</a>'

        return link

    return [_LINK.sub(linker(found), text) for text, found in zip(escaped, wanted, strict=True)]
