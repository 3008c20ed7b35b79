"""`index.php?action=delete`: the confirmation form (reason) and the deletion, the same change as
the API's `action=delete`. Readers without the `delete` right get MediaWiki's permission error;
a post needs the session's token and no block."""

from __future__ import annotations

from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.pageops import delete_page
from atrium.wiki.changes.protection import badaccess, page_row
from atrium.wiki.web.log_lines import message
from atrium.wiki.web.special.blocknotice import block_notice, block_of
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    message_page,
    permission_error,
    render,
    session_failure,
    wikitext_html,
)
from atrium.wiki.web.texts import text as web_text
from atrium.wiki.wikitext.escaping import escape_wikitext


async def handle(ctx: SpecialContext) -> Response:
    title = ctx.target or ctx.subpage_title()
    if title is None:
        return await message_page(
            ctx, "Bad title", "The requested page title is empty or invalid.", 400
        )
    ctx.target = title
    if not ctx.reader.allowed("delete"):
        return await permission_error(ctx, "delete this page", badaccess(ctx.site, "delete"))
    block = await block_of(ctx, title)
    if block is not None:
        return await block_notice(ctx, block)
    name = Links(ctx.site).name(title)
    if await ctx.db.read(page_row, title) is None:
        # DeleteAction's own refusal for a page that is not there, at 200.
        return await message_page(
            ctx, web_text("cannotdelete-title", name),
            message("cannotdelete", escape_wikitext(name)), 200,
        )  # fmt: skip
    if ctx.method != "POST":
        return await render(ctx, "delete.html", f'Delete "{name}"', title=title, error="")
    if not ctx.token_ok():
        return await render(
            ctx, "delete.html", f'Delete "{name}"', title=title, error=session_failure()
        )
    try:
        await ctx.db.write(
            delete_page, ctx.site, ctx.performer(), title, ctx.param("wpReason")[:500]
        )
    except ChangeError as exc:
        # The form shown again with the error, at 200, as DeleteAction does.
        return await render(ctx, "delete.html", f'Delete "{name}"', title=title, error=exc.text)
    text = await wikitext_html(
        ctx,
        f'"{escape_wikitext(name)}" has been deleted. See [[Special:Log/delete|deletion log]] '
        "for a record of recent deletions.",
    )
    return await render(
        ctx, "message.html", "Action complete", box="mw-message-box", text=Markup(text)
    )


PAGE = SpecialPage("Delete", "Delete a page", "pagetools", handle, "delete")
