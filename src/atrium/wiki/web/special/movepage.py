"""`Special:MovePage/<page>`: rename a page (and its talk page), leaving a redirect or not, with a
reason; the same change as the API's `action=move`, whose checks (rights, protection, an
existing target, namespaces) refuse with MediaWiki's reasons. A post needs the session's token
and no block."""

from __future__ import annotations

from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.pageops import move_page
from atrium.wiki.changes.protection import badaccess, page_row
from atrium.wiki.limits import wiki_limits
from atrium.wiki.titles import Title
from atrium.wiki.web.special.blocknotice import block_notice, block_of
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    message_page,
    not_logged_in,
    permission_error,
    render,
    session_failure,
    wikitext_html,
)
from atrium.wiki.web.texts import text as web_text
from atrium.wiki.wikitext.escaping import escape_wikitext


async def _form(ctx: SpecialContext, source: Title, error: str = "", status: int = 200) -> Response:
    name = Links(ctx.site).name(source)
    return await render(
        ctx,
        "movepage.html",
        f'Move "{name}"',
        status,
        source=source,
        name=name,
        new_title=ctx.param("wpNewTitle", name),
        reason=ctx.param("wpReason"),
        leave_redirect=ctx.flag("wpLeaveRedirect") if ctx.method == "POST" else True,
        error=error,
    )


async def _move(ctx: SpecialContext, source: Title, target: Title) -> None:
    reason = ctx.param("wpReason")[:500]
    noredirect = not ctx.flag("wpLeaveRedirect")
    who = ctx.performer()
    await ctx.db.write(move_page, ctx.site, who, source, target, reason, noredirect)
    talk_source, talk_target = (
        Title(source.ns | 1, source.dbkey),
        Title(target.ns | 1, target.dbkey),
    )
    wanted = ctx.flag("wpMovetalk") and source.ns % 2 == 0 and talk_source != talk_target
    if wanted and await ctx.db.read(page_row, talk_source) is not None:
        await ctx.db.write(move_page, ctx.site, who, talk_source, talk_target, reason, noredirect)


async def handle(ctx: SpecialContext) -> Response:
    source = ctx.title_of(ctx.param("target") or ctx.subpage)
    if source is None:
        # SpecialMovePage's ErrorPageError (`notargettitle`), a page, not a client error.
        return await message_page(
            ctx, "No target",
            "You have not specified a target page or user to perform this function on.", 200,
        )  # fmt: skip
    if not ctx.reader.registered:
        return await not_logged_in(ctx, "move pages")
    if not ctx.reader.allowed("move"):
        return await permission_error(ctx, "move this page", badaccess(ctx.site, "move"))
    block = await block_of(ctx, source)
    if block is not None:
        return await block_notice(ctx, block)
    if await ctx.db.read(page_row, source) is None:
        # SpecialMovePage's ErrorPageError (`nopagetitle`), shown at 200.
        return await message_page(ctx, web_text("nopagetitle"), web_text("nopagetext"), 200)
    if ctx.method != "POST":
        return await _form(ctx, source)
    if not ctx.token_ok():
        return await _form(ctx, source, session_failure())
    target = ctx.title_of(ctx.param("wpNewTitle"))
    if target is None:
        # The form shown again with the error, at 200, as SpecialMovePage does.
        return await _form(ctx, source, "The requested page title is empty or invalid.")
    address = ctx.request.client.host if ctx.request.client else ""
    if await wiki_limits(ctx.request).ping(ctx.reader, "move", address):
        return await _form(ctx, source, web_text("actionthrottledtext"), 429)
    try:
        await _move(ctx, source, target)
    except ChangeError as exc:
        return await _form(ctx, source, exc.text)
    links = Links(ctx.site)
    text = await wikitext_html(
        ctx,
        f'"[[:{escape_wikitext(links.name(source))}]]" has been moved to '
        f'"[[:{escape_wikitext(links.name(target))}]]".',
    )
    return await render(
        ctx, "message.html", "Move succeeded", box="mw-message-box", text=Markup(text)
    )


PAGE = SpecialPage("MovePage", "Move page", "pagetools", handle)
