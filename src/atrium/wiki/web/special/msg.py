"""MediaWiki's interface messages as HTML for the Special pages: the message's wikitext from
1.39's en.json with its parameters, PLURAL and GENDER filled in, rendered with its links blue or
red. Parameters that carry user text must be escaped by the caller (`escape_wikitext`)."""

from __future__ import annotations

import re

from markupsafe import Markup

from atrium.wiki.titles import Title
from atrium.wiki.web.log_lines import message
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.render import Links, wikitext_html

_LINKED_SLOT = re.compile(r"\[\[:?(QQATRIUMLINK\d+QQ)\]\]")


async def msg_html(ctx: SpecialContext, key: str, *params: str | int) -> Markup:
    """The message as block HTML (its paragraphs)."""
    return Markup(await wikitext_html(ctx, message(key, *params)))


async def msg_inline(ctx: SpecialContext, key: str, *params: str | int) -> Markup:
    """A one-line message as inline HTML (a label), without the paragraph around it."""
    return await inline_html(ctx, message(key, *params))


async def inline_html(ctx: SpecialContext, wikitext: str) -> Markup:
    """One line of wikitext as inline HTML, without the paragraph around it."""
    html = (await wikitext_html(ctx, wikitext)).strip()
    if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4].strip()
    return Markup(html)


def _link(ctx: SpecialContext, title: Title) -> Markup:
    links = Links(ctx.site)
    name = links.name(title)
    return Markup('<a href="{}" title="{}">{}</a>').format(links.page(title), name, name)


async def msg_links(ctx: SpecialContext, key: str, *params: str | int | Title) -> Markup:
    """A one-line message whose Title parameters are links to those pages (its `[[:$n]]` or
    bare `$n`). The links go in after rendering: a title's characters (quotes, ampersands)
    need no wikitext escaping that a link target would not read back."""
    slots = {f"QQATRIUMLINK{i}QQ": p for i, p in enumerate(params) if isinstance(p, Title)}
    marked = [f"QQATRIUMLINK{i}QQ" if isinstance(p, Title) else p for i, p in enumerate(params)]
    text = _LINKED_SLOT.sub(r"\1", message(key, *marked))
    html = await inline_html(ctx, text)
    for slot, title in slots.items():
        assert isinstance(title, Title)
        html = Markup(html.replace(slot, _link(ctx, title)))
    return html
