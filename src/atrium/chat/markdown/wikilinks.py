"""`[[Page]]`, `[[Page|label]]`, `[[Page#Section]]` and `[[Namespace:Page]]`: links to the wiki.

The renderer stays pure: the caller finds the message's targets (`wiki_link_targets`), has them
resolved by whatever the chat was given to do so (the workspace injects the wiki's resolver), and
passes the answers in `RenderContext.wiki_links`. A target the resolver did not answer (no wiki,
an invalid title, one link too many) stays text. Links take MediaWiki's look: a missing page is a
red link (`new`) to its edit form, with MediaWiki's "(page does not exist)" title.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import Element

from markdown.inlinepatterns import InlineProcessor
from markdown.util import AtomicString

# A title is at most 255 bytes (512 for a special page) and a section name rarely much more; the
# bounds keep a hostile message's matches short. No newline, no brackets inside.
MAX_TARGET_CHARS = 600
MAX_LABEL_CHARS = 600
WIKI_LINK_RE = re.compile(
    rf"\[\[(?P<target>[^\[\]|\n]{{1,{MAX_TARGET_CHARS}}})"
    rf"(?:\|(?P<label>[^\[\]\n]{{1,{MAX_LABEL_CHARS}}}))?\]\]"
)
# Distinct targets resolved per message: the rest stay text, so one message costs at most this
# many title look-ups whatever it holds.
MAX_WIKI_LINKS = 50


@dataclass(frozen=True, slots=True)
class WikiTarget:
    """A resolved link target: the title as readers see it (`Help:Editing#Tables`), where it
    leads, and whether the page existed when the message was rendered."""

    title: str
    href: str
    exists: bool


# Takes the raw targets (as written between `[[` and `|`/`]]`), answers those that are links.
WikiLinkResolver = Callable[[Sequence[str]], Mapping[str, WikiTarget]]


def wiki_link_targets(content: str) -> list[str]:
    """The message's distinct link targets, stripped, in order, at most `MAX_WIKI_LINKS`."""
    if "[[" not in content:
        return []
    found: dict[str, None] = {}
    for match in WIKI_LINK_RE.finditer(content):
        target = match.group("target").strip()
        if target:
            found.setdefault(target, None)
            if len(found) >= MAX_WIKI_LINKS:
                break
    return list(found)


class WikiLinkProcessor(InlineProcessor):  # type: ignore[misc]
    def __init__(self, md: Any) -> None:
        super().__init__(WIKI_LINK_RE.pattern, md)
        self.compiled_re = WIKI_LINK_RE

    def handleMatch(
        self, m: re.Match[str], data: str
    ) -> tuple[Element | None, int | None, int | None]:
        target = self.md.zulip_ctx.wiki_links.get(m.group("target").strip())
        if target is None:
            return None, None, None
        label = (m.group("label") or "").strip() or m.group("target").strip()
        el = Element("a")
        el.set("href", target.href)
        if target.exists:
            el.set("class", "wiki-link")
            el.set("title", target.title)
        else:
            el.set("class", "wiki-link new")
            el.set("title", f"{target.title} (page does not exist)")
        el.text = AtomicString(label)
        return el, m.start(0), m.end(0)
