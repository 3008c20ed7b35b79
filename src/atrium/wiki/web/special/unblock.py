"""`Special:Unblock` (`Special:Unblock/<target>`): lift the block of a user name, address or
`#<block id>`. A post needs the `block` right and the session's token, and runs the same change
as the API's `action=unblock`; a hidden user's block needs `hideuser` there too."""

from __future__ import annotations

from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki.accounts.usernames import is_ip_or_range
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.blocks import sanitize_target, unblock
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import permission_error, render, session_failure, wikitext_html
from atrium.wiki.web.texts import text as web_text


async def _form(ctx: SpecialContext, error: str = "") -> Response:
    return await render(
        ctx,
        "unblock.html",
        "Unblock user",
        target=ctx.param("wpTarget") or ctx.subpage,
        reason=ctx.param("wpReason"),
        error=error,
    )


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.allowed("block"):
        return await permission_error(ctx, "unblock users", badaccess(ctx.site, "block"))
    if ctx.method != "POST":
        return await _form(ctx)
    if not ctx.token_ok():
        return await _form(ctx, error=session_failure())
    text = ctx.param("wpTarget").strip()
    block_id: int | None = None
    target: str | None = None
    if text.startswith("#") and text[1:].isdigit() and len(text) < 12:
        block_id = int(text[1:])
    elif is_ip_or_range(text):
        target = sanitize_target(text)
    else:
        title = ctx.title_of(text)
        if title is None:
            # No such name can be blocked: MediaWiki finds no block for it (and names none).
            return await _form(ctx, error=web_text("ipb_cant_unblock", ""))
        target = title.dbkey.replace("_", " ")
    try:
        row = await ctx.db.write(
            unblock, ctx.performer(), block_id, target, ctx.param("wpReason")[:500], ctx.site
        )
    except ChangeError as exc:
        # HTMLForm shows the form again with the error, at 200.
        return await _form(ctx, error=exc.text)
    name = str(row["ipb_address"])
    shown = await wikitext_html(ctx, f"[[User:{name}|{name}]] has been unblocked.")
    return await render(
        ctx, "message.html", "Unblock user", box="mw-message-box", text=Markup(shown)
    )


PAGE = SpecialPage("Unblock", "Unblock user", "users", handle, "block")
