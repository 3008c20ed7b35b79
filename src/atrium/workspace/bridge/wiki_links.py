"""Resolves the chat's `[[wiki links]]` against the wiki: title rules, existence, URLs.

Called while a message renders (in a rendering thread or the chat's writer), so it reads the
wiki's database synchronously, with one query for all of a message's targets (at most
`MAX_WIKI_LINKS` of them, bounded by the renderer).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from urllib.parse import quote

from atrium.chat.markdown.wikilinks import WikiLinkResolver, WikiTarget
from atrium.wiki.reads.pages import pages_by_titles
from atrium.wiki.runtime import WikiRuntime
from atrium.wiki.titles import NS_FILE, NS_MEDIA, NS_SPECIAL, InvalidTitle, Title
from atrium.wiki.web import specialpages
from atrium.wiki.web.links import index_href, page_href, prefixed_text

logger = logging.getLogger(__name__)


def _fragment(text: str) -> str:
    """MediaWiki's HTML5 link fragment: spaces as underscores, the rest percent-encoded."""
    return quote(text.strip().replace(" ", "_"), safe=":/!$()*,;@~'.-_")


def resolve_titles(wiki: WikiRuntime, targets: Sequence[str]) -> dict[str, WikiTarget]:
    """The targets that are valid wiki titles, with their text, URL and existence."""
    site = wiki.site
    parsed: dict[str, Title] = {}
    for raw in targets:
        try:
            title = site.parser.parse(raw)
        except InvalidTitle:
            continue
        if title.interwiki or not title.dbkey:
            continue
        if title.ns == NS_MEDIA:
            title = Title(NS_FILE, title.dbkey, title.fragment)
        parsed[raw] = title
    wanted = {(t.ns, t.dbkey) for t in parsed.values() if t.ns >= 0}
    rows = wiki.db.read_sync(pages_by_titles, sorted(wanted)) if wanted else []
    existing = {(r["page_namespace"], r["page_title"]) for r in rows}
    found: dict[str, WikiTarget] = {}
    for raw, title in parsed.items():
        if title.ns == NS_SPECIAL:
            exists = specialpages.lookup(title.dbkey) is not None
        else:
            exists = (title.ns, title.dbkey) in existing
        text = prefixed_text(site, title)
        if exists:
            href = page_href(site, title)
            if title.fragment:
                href += "#" + _fragment(title.fragment)
                text += "#" + title.fragment
        else:
            href = index_href(site, title, action="edit", redlink="1")
        found[raw] = WikiTarget(title=text, href=href, exists=exists)
    return found


def wiki_link_resolver(wiki: Callable[[], WikiRuntime | None]) -> WikiLinkResolver:
    """The resolver handed to the chat's renderer. `wiki` gives the running wiki (None while it
    is stopped: links then stay text rather than failing the message)."""

    def resolve(targets: Sequence[str]) -> Mapping[str, WikiTarget]:
        runtime = wiki()
        if runtime is None:
            return {}
        try:
            return resolve_titles(runtime, targets)
        except Exception:
            # A message must not fail to send because the wiki could not be read.
            logger.exception("resolving wiki links failed")
            return {}

    return resolve
