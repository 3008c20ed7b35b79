"""`Special:EmailUser/<name>`: write to another user through the wiki (changes/email_user.py
holds the rules), under MediaWiki's `emailuser` rate limit."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.email_user import MAX_SUBJECT, MAX_TEXT, check_sender, email_user
from atrium.wiki.limits import wiki_limits
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import message_page, render, session_failure
from atrium.wiki.web.texts import text


async def _form(ctx: SpecialContext, target: str, error: str = "", status: int = 200) -> Response:
    return await render(
        ctx,
        "emailuser.html",
        text("emailuser-title-target", target) if target else text("emailuser-title-notarget"),
        status,
        target=target,
        subject=ctx.param("wpSubject")
        or text("defemailsubject", ctx.reader.name).replace("{{SITENAME}}", ctx.site.sitename),
        body=ctx.param("wpText"),
        error=error,
        intro=text("emailpagetext", target),
        labels={
            "to": text("emailto"),
            "subject": text("emailsubject"),
            "message": text("emailmessage"),
            "ccme": text("emailccme"),
            "send": text("emailsend"),
        },
    )


async def handle(ctx: SpecialContext) -> Response:
    try:
        check_sender(ctx.reader)
    except ChangeError:
        # An ErrorPageError in MediaWiki, which answers 200.
        return await message_page(ctx, text("mailnologin"), text("mailnologintext"), 200)
    target = (ctx.subpage or ctx.param("wpTarget") or ctx.param("target")).replace("_", " ")
    if ctx.method != "POST":
        return await _form(ctx, target)
    if not ctx.token_ok():
        return await _form(ctx, target, session_failure())
    # SpecialEmailUser shows the form again with the error, at 200, for every refusal below.
    subject, body = ctx.param("wpSubject").strip(), ctx.param("wpText")
    if not subject or not body.strip():
        return await _form(ctx, target, "Please enter a subject and a message.")
    if len(subject) > MAX_SUBJECT or len(body) > MAX_TEXT:
        return await _form(ctx, target, "The subject or the message is too long.")
    if await wiki_limits(ctx.request).ping(ctx.reader, "emailuser", ctx.client_ip):
        return await _form(ctx, target, text("actionthrottledtext"), 429)
    try:
        await ctx.db.write(
            email_user, ctx.site, ctx.reader, target, subject, body, ctx.flag("wpCCMe")
        )
    except ChangeError as error:
        return await _form(ctx, target, error.text)
    return await message_page(ctx, text("emailsent"), text("emailsenttext"), 200, box="successbox")


PAGE = SpecialPage("EmailUser", "Email user", "users", handle)
