"""`Special:ExpandTemplates`: wikitext with its templates, parser functions and variables
expanded in the context of a page (the same expansion as the API's `action=expandtemplates`),
with comments removed on request, and a preview of the result. The expansion runs off the
event loop under the renderer's time budget."""

from __future__ import annotations

import re

from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki.reads import page_view as reading
from atrium.wiki.reads import parsing
from atrium.wiki.titles import NS_SPECIAL, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

MAX_INPUT = 2 * 1024 * 1024  # $wgMaxArticleSize
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)


async def handle(ctx: SpecialContext) -> Response:
    text = ctx.param("wpInput")
    context_text = ctx.param("wpContextTitle").strip()
    remove_comments = (
        ctx.flag("wpRemoveComments")
        if "wpInput" in ctx.form or ("wpInput" in ctx.request.query_params)
        else True
    )
    context = ctx.title_of(context_text) if context_text else Title(NS_SPECIAL, "ExpandTemplates")
    error = ""
    output = ""
    preview = Markup("")
    if context is None:
        error = "The requested page title is empty or invalid."
    elif len(text.encode()) > MAX_INPUT:
        error = "The input is too long: it may be at most 2,048 kilobytes."
    elif text:
        output, _used = await ctx.db.read_rendering(parsing.expand, ctx.site, context, text)
        if remove_comments:
            output = _COMMENT.sub("", output)
        rendered = await ctx.db.read_rendering(reading.render_text, ctx.site, context, output)
        preview = Markup(rendered.html)
    return await render(
        ctx, "expandtemplates.html", "Expand templates", text=text, context=context_text,
        remove_comments=remove_comments, output=output, preview=preview, error=error,
    )  # fmt: skip


PAGE = SpecialPage("ExpandTemplates", "Expand templates", "wiki", handle)
