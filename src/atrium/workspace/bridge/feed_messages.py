"""The text of a wiki feed notification, in the chat's Markdown.

Everything from the wiki that a person wrote (a summary, a title, a user name) goes where the
chat's renderer cannot read it as syntax: in a code span, or as the label of a `[[wiki link]]`
(which is never parsed further). A title or name holding `@` is always a code span, so that no
fallback to text could turn it into a mention.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.workspace.bridge.wiki_changes import Change

MAX_TOPIC_CHARS = 60
MAX_SUMMARY_CHARS = 500


def code(text: str) -> str:
    """A code span holding `text` literally, whatever backticks it holds."""
    text = " ".join(text.split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {text} {fence}"


def _url(site: Site, **params: str) -> str:
    # Parentheses would end a Markdown link's URL.
    query = urlencode(params).replace("(", "%28").replace(")", "%29")
    return f"{site.server}/w/index.php?{query}"


def _page(site: Site, title: Title) -> str:
    text = site.parser.prefixed_text(title.ns, title.dbkey)
    return code(text) if "@" in text else f"[[{text}]]"


def _user(site: Site, name: str) -> str:
    if "@" in name or not site.parser.parse_or_none(name):
        return code(name)
    return f"[[User:{name}|{name}]]"


def topic_for(site: Site, change: Change, rule_topic: str) -> str:
    if rule_topic:
        return rule_topic
    text = site.parser.prefixed_text(change.ns, change.dbkey)
    return text if len(text) <= MAX_TOPIC_CHARS else text[: MAX_TOPIC_CHARS - 1] + "…"


def notification(site: Site, change: Change) -> str:
    title = Title(change.ns, change.dbkey)
    page = _page(site, title)
    who = _user(site, change.user)
    dbkey = quote(site.parser.prefixed_dbkey(change.ns, change.dbkey), safe=":/")
    if change.kind == "create":
        text = f"{page} was created by {who} ([view]({_url(site, title=dbkey, oldid=str(change.rev_id))}))"
    elif change.kind == "edit":
        diff = _url(site, title=dbkey, diff=str(change.rev_id), oldid=str(change.parent_id))
        text = f"{page} was edited by {who} ([diff]({diff}))"
    elif change.kind == "move":
        target = str(change.params.get("target_title", ""))
        parsed = site.parser.parse_or_none(target) if target else None
        moved_to = _page(site, parsed) if parsed is not None else code(target)
        text = f"{code(site.parser.prefixed_text(change.ns, change.dbkey))} was moved to {moved_to} by {who}"
    elif change.kind == "delete":
        text = f"{code(site.parser.prefixed_text(change.ns, change.dbkey))} was deleted by {who}"
    else:
        text = f"{page} was uploaded by {who}"
    summary = change.comment.strip()[:MAX_SUMMARY_CHARS]
    if summary:
        text += f": {code(summary)}"
    return text
