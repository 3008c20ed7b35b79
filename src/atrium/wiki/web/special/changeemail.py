"""`Special:ChangeEmail`: a new address (or none), with the account's password, then a
confirmation mail to the new address (MediaWiki's `$wgEmailAuthentication`)."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.changes.accounts import set_email
from atrium.wiki.changes.email_confirmation import mail_confirmation
from atrium.wiki.limits import duration, wiki_limits
from atrium.wiki.reads.password_check import password_ok
from atrium.wiki.reads.users import password_hash
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.member_address import mailed_text, request_member_address
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.preferences import EMAIL
from atrium.wiki.web.special.render import message_page, not_logged_in, render, session_failure
from atrium.wiki.web.texts import text

MAX_EMAIL = 255


async def _form(ctx: SpecialContext, error: str = "") -> Response:
    return await render(
        ctx,
        "changeemail.html",
        text("changeemail"),
        header=text("changeemail-header"),
        current=ctx.reader.email or text("changeemail-none"),
        new_email=ctx.param("wpNewEmail"),
        error=error,
        labels={
            "old": text("changeemail-oldemail"),
            "new": text("changeemail-newemail"),
            "password": text("changeemail-password"),
            "submit": text("changeemail-submit"),
        },
    )


async def change(ctx: SpecialContext) -> Response:
    if not ctx.reader.registered:
        return await not_logged_in(ctx, "change your email address")
    if ctx.method != "POST":
        return await _form(ctx)
    if not ctx.token_ok():
        return await _form(ctx, session_failure())
    # HTMLForm shows the form again with the error, at 200, for every refusal below.
    new = ctx.param("wpNewEmail").strip()
    if len(new) > MAX_EMAIL:
        return await _form(ctx, text("changeemail-maxlength"))
    if new and not EMAIL.fullmatch(new):
        return await _form(ctx, text("invalidemailaddress"))
    if new == ctx.reader.email:
        return await _form(ctx, text("changeemail-nochange"))
    throttle = wiki_limits(ctx.request).passwords
    refused = await throttle.refusal(ctx.reader.name, ctx.client_ip)
    if refused is not None:
        return await _form(ctx, text("changeemail-throttled", duration(refused.rule.window)))
    stored = await ctx.db.read(password_hash, ctx.reader.id)
    if not await password_ok(stored, ctx.param("wpPassword")):
        await throttle.failed(ctx.reader.name, ctx.client_ip)
        return await _form(ctx, text("wrongpassword"))
    member = await request_member_address(ctx, new)
    if member is not None:
        if member.refused:
            return await _form(ctx, member.refused)
        return await message_page(ctx, text("changeemail"), mailed_text(new), 200, box="successbox")
    await ctx.db.write(set_email, ctx.reader.id, new)
    if new:
        reason = "changed" if ctx.reader.email else "set"
        await ctx.db.write(mail_confirmation, ctx.site, ctx.reader.id, ctx.client_ip, reason)
    done = text("confirmemail_oncreate") if new else text("changeemail")
    return await message_page(ctx, text("changeemail"), done, 200, box="successbox")


PAGE = SpecialPage("ChangeEmail", "Change or remove email address", "users", change)
