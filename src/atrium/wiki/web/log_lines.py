"""Log entries as HTML for the browser pages: each entry's sentence (`messages.log_sentences`)
with the performer's talk and contributions links and times as the reader writes them, rendered
in one batch so every link is blue or red as its page exists; and each log's name."""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup

from atrium.core.db import Database
from atrium.wiki.messages.log_sentences import LogLine, message, wikitext
from atrium.wiki.reads.page_view import link_states
from atrium.wiki.site import Site
from atrium.wiki.titles import NS_USER, Title
from atrium.wiki.web.dates import local_time
from atrium.wiki.wikitext.html.message import MessageHtml, link_targets

__all__ = ["LOG_NAMES", "LogLine", "log_html", "message", "user_title"]

# Each log's name (the `<type>logpage` / `log-name-<type>` messages).
LOG_NAMES = {
    "block": "Block log",
    "contentmodel": "Content model change log",
    "create": "Page creation log",
    "delete": "Deletion log",
    "import": "Import log",
    "managetags": "Tag management log",
    "merge": "Merge log",
    "move": "Move log",
    "newusers": "User creation log",
    "patrol": "Patrol log",
    "protect": "Protection log",
    "rights": "User rights log",
    "suppress": "Suppression log",
    "tag": "Tag log",
    "upload": "Upload log",
}


async def log_html(db: Database, site: Site, lines: Sequence[LogLine]) -> list[Markup]:
    """Each entry's sentence as HTML, with one look-up of the pages all of them link to."""
    texts = [wikitext(site, line, local_time) for line in lines]
    parser = site.parser
    targets: set[tuple[int, str]] = set()
    for text in texts:
        targets |= link_targets(parser, text)
    known, redirects = await db.read(link_states, targets) if targets else (set(), set())
    renderer = MessageHtml(parser, known, redirects=redirects)
    return [Markup(_unwrap(renderer.render(text))) for text in texts]


def _unwrap(rendered: str) -> str:
    """A one-line message without the paragraph the renderer puts it in."""
    text = rendered.strip()
    if text.startswith("<p>") and text.endswith("</p>") and text.count("<p>") == 1:
        return text[3:-4].strip()
    return text


def user_title(name: str) -> Title:
    return Title(NS_USER, name.replace(" ", "_"))
