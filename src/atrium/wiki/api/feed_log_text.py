"""The sentence a recent-changes feed item of a log entry starts with, as FeedUtils::formatDiff
gives it (LogFormatter::getActionText in HTML): the performer as a plain user link (no talk and
contributions links), the pages as links, times in the wiki's default format. Entries with any
hidden part never reach a feed (the feed leaves them out), so the sentence shows everything.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from urllib.parse import quote

from atrium.core.db import Conn
from atrium.wiki.messages.log_sentences import LogLine, wikitext
from atrium.wiki.reads.page_view import link_states
from atrium.wiki.reads.tag_targets import log_entries_by_ids
from atrium.wiki.site import Site
from atrium.wiki.timestamps import formatted
from atrium.wiki.titles import NS_USER, Title
from atrium.wiki.wikitext.html.message import MessageHtml, link_targets

# Stands for the performer while the sentence is rendered; its link is put in afterwards.
_PERFORMER = "QQATRIUMFEEDPERFORMERQQ"
_PERFORMER_LINK = re.compile(r"<a\b[^>]*>" + _PERFORMER + "</a>")


def _user_link(site: Site, name: str) -> str:
    """Linker::userLink: always the user page's plain address, whether it exists or not."""
    key = site.parser.prefixed_dbkey(NS_USER, name.replace(" ", "_"))
    shown = html.escape(name)
    return (
        f'<a href="/wiki/{quote(key, safe=":/")}" class="mw-userlink" '
        f'title="{html.escape(site.parser.prefixed_text(NS_USER, name))}"><bdi>{shown}</bdi></a>'
    )


def log_sentences(conn: Conn, site: Site, log_ids: Sequence[int]) -> dict[int, str]:
    """Each visible entry's sentence as HTML, by log id (entries with a hidden part: none)."""
    rows = [r for r in log_entries_by_ids(conn, log_ids) if not int(r["log_deleted"] or 0)]
    texts: dict[int, tuple[str, str]] = {}
    for row in rows:
        performer = str(row["actor_name"])
        line = LogLine(
            str(row["log_type"]), str(row["log_action"]), row["log_params"], _PERFORMER,
            Title(int(row["log_namespace"]), str(row["log_title"])),
        )  # fmt: skip
        texts[int(row["log_id"])] = (wikitext(site, line, formatted, tools=False), performer)
    targets: set[tuple[int, str]] = set()
    for text, _ in texts.values():
        targets |= link_targets(site.parser, text)
    known, redirects = link_states(conn, targets) if targets else (set(), set())
    renderer = MessageHtml(site.parser, known, redirects=redirects)
    shown: dict[int, str] = {}
    for log_id, (text, performer) in texts.items():
        rendered = renderer.render(text).strip()
        if rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<p>") == 1:
            rendered = rendered[3:-4].strip()
        # A plain string replacement: the link is not a pattern (its backslashes stay).
        found = _PERFORMER_LINK.search(rendered)
        if found is not None:
            link = _user_link(site, performer)
            rendered = rendered[: found.start()] + link + rendered[found.end() :]
        shown[log_id] = rendered.replace(_PERFORMER, html.escape(performer))
    return shown
