"""`Special:ConfirmEmail` (mail a confirmation code; `/<code>` confirms the address) and
`Special:InvalidateEmail/<code>` (the mail's cancel link), as MediaWiki 1.39: following the link
confirms, no form needed."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.changes.email_confirmation import (
    confirm_email,
    invalidate_email,
    mail_confirmation,
)
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import bad_token, message_page, not_logged_in, render
from atrium.wiki.web.texts import text


async def confirm(ctx: SpecialContext) -> Response:
    # SpecialConfirmEmail answers its messages (bad code, no address) as pages, with 200.
    if ctx.subpage:
        user_id = await ctx.db.write(confirm_email, ctx.subpage)
        if user_id is None:
            return await message_page(ctx, text("confirmemail"), text("confirmemail_invalid"), 200)
        key = "confirmemail_loggedin" if ctx.reader.id == user_id else "confirmemail_success"
        return await message_page(ctx, text("confirmemail"), text(key), 200, box="successbox")
    if not ctx.reader.registered:
        return await not_logged_in(ctx, "confirm your email address")
    account = ctx.reader
    if not account.email:
        return await message_page(ctx, text("confirmemail"), text("confirmemail_noemail"), 200)
    if ctx.method != "POST":
        return await render(
            ctx,
            "confirmemail.html",
            text("confirmemail"),
            intro=text("confirmemail_text"),
            button=text("confirmemail_send"),
            confirmed=account.email_authenticated,
        )
    if not ctx.token_ok():
        return await bad_token(ctx)
    await ctx.db.write(mail_confirmation, ctx.site, account.id, ctx.client_ip, "set")
    return await message_page(
        ctx, text("confirmemail"), text("confirmemail_sent"), 200, box="successbox"
    )


async def invalidate(ctx: SpecialContext) -> Response:
    user_id = await ctx.db.write(invalidate_email, ctx.subpage) if ctx.subpage else None
    if user_id is None:
        return await message_page(ctx, text("invalidateemail"), text("confirmemail_invalid"), 200)
    return await message_page(
        ctx, text("invalidateemail"), text("confirmemail_invalidated"), 200, box="successbox"
    )


PAGE = SpecialPage("ConfirmEmail", "Confirm email address", "users", confirm)
INVALIDATE_PAGE = SpecialPage("InvalidateEmail", "Cancel email confirmation", "other", invalidate)
