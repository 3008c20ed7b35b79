"""MediaWiki's interface messages as HTML for the Special pages: the message's wikitext from
1.39's en.json with its parameters, PLURAL and GENDER filled in, rendered with its links blue or
red. Parameters that carry user text must be escaped by the caller (`escape_wikitext`)."""

from __future__ import annotations

from markupsafe import Markup

from atrium.wiki.web.log_lines import message
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.render import wikitext_html


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
