"""Whom a wiki change notifies personally, by a direct message from the Notification Bot: the
watchers of its page who asked for it (`WATCHLIST_SETTING`, off by default, as MediaWiki's
`enotifwatchlistpages` is for email), and the users its summary, or a talk page edit's new
text, mentions as `[[User:Name]]` (as Echo's mentions). The person who made the change is never
notified of it, and nobody of a page in a wiki they may not read."""

from __future__ import annotations

import re
from dataclasses import dataclass

from atrium.wiki.site import Site
from atrium.wiki.titles import NS_USER
from atrium.workspace.bridge.wiki_changes import Change

# The per-person setting (`GET/PATCH /api/v1/atrium/notification_settings`).
WATCHLIST_SETTING = "wiki_watchlist_pages"
# Mentions read from one change: a summary or an edit naming more is not notifying everyone.
MAX_MENTIONS = 20
# Wiki link targets as the parser reads them (no brackets, braces or line breaks inside).
_LINK = re.compile(r"\[\[([^\[\]{}|\n]{1,255})(?:\|[^\[\]\n]*)?\]\]")


@dataclass(frozen=True)
class Reason:
    watching: bool = False
    mentioned: bool = False


def mentioned_names(site: Site, text: str) -> list[str]:
    """The user names that `[[User:Name]]` links in `text` point at (not their subpages), in
    order, at most `MAX_MENTIONS`."""
    found: list[str] = []
    for match in _LINK.finditer(text):
        target = match.group(1).strip()
        title = site.parser.parse_or_none(target[1:] if target.startswith(":") else target)
        if title is None or title.ns != NS_USER or "/" in title.dbkey:
            continue
        name = title.dbkey.replace("_", " ")
        if name not in found:
            found.append(name)
        if len(found) >= MAX_MENTIONS:
            break
    return found


def new_mentions(site: Site, change: Change, text: str, parent_text: str) -> list[str]:
    """Who the change mentions: in its summary, and in the text a talk page edit added."""
    names = mentioned_names(site, change.comment)
    if change.kind in ("create", "edit") and change.ns % 2 == 1:
        before = set(mentioned_names(site, parent_text))
        names += [n for n in mentioned_names(site, text) if n not in before and n not in names]
    return names[:MAX_MENTIONS]


def direct_message(reason: Reason, notification: str) -> str:
    if reason.mentioned:
        return f"You were mentioned on the wiki: {notification}"
    return f"A page on your watchlist changed: {notification}"
