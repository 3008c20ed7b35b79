"""The `[edit]` links beside section headings (`mw-editsection`), as MediaWiki's parser output
has them: shared by `action=parse` and the page views."""

from __future__ import annotations

import html
import re

_HEADING_HTML = re.compile(
    r'<h([1-6])><span class="mw-headline" id="([^"]*)">(.*?)</span></h\1>', re.S
)
_TAG = re.compile(r"<[^>]*>")


def add_edit_links(prefixed_dbkey: str, body: str) -> str:
    """`body` with a link to `action=edit&section=N` in each heading, N counted in order."""
    key = html.escape(prefixed_dbkey)
    counter = 0

    def add(match: re.Match[str]) -> str:
        nonlocal counter
        counter += 1
        plain = html.escape(html.unescape(_TAG.sub("", match.group(3))).strip())
        link = (
            '<span class="mw-editsection"><span class="mw-editsection-bracket">[</span>'
            f'<a href="/w/index.php?title={key}&amp;action=edit&amp;section={counter}" '
            f'title="Edit section: {plain}">edit</a>'
            '<span class="mw-editsection-bracket">]</span></span>'
        )
        whole = match.group(0)
        return whole[: -len(f"</h{match.group(1)}>")] + link + f"</h{match.group(1)}>"

    return _HEADING_HTML.sub(add, body)
