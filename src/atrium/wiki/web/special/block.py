"""`Special:Block` (`Special:Block/<target>`): block a user name, IP address or range, sitewide or
from some pages and namespaces, with an expiry, a reason and MediaWiki's options. A post needs the
`block` right (`hideuser` to hide the name), the session's token and no block of the
administrator's own, and runs the same change as the API's `action=block`."""

from __future__ import annotations

from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki.accounts.usernames import is_ip_or_range
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.blocks import BlockRequest, sanitize_target
from atrium.wiki.changes.blocks import block as do_block
from atrium.wiki.changes.expiry import checked_expiry
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.reads.pages import pages_by_titles
from atrium.wiki.reads.users import account_by_name
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import Title
from atrium.wiki.web.special.blocknotice import block_notice, block_of
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    permission_error,
    render,
    session_failure,
    wikitext_html,
)
from atrium.wiki.web.texts import text as web_text

EXPIRY_CHOICES = ("infinite", "2 hours", "1 day", "3 days", "1 week", "2 weeks", "1 month",
                  "3 months", "6 months", "1 year")  # fmt: skip
OPTIONS = (
    ("wpCreateAccount", "Account creation", True),
    ("wpDisableEmail", "Sending email", False),
    ("wpDisableUTEdit", "Editing own talk page", False),
    ("wpAutoBlock", "Autoblock any IP addresses used", True),
    ("wpHardBlock", "Apply block to logged-in users from this IP address", False),
    ("wpWatch", "Watch this user's user and talk pages", False),
)


async def _form(ctx: SpecialContext, error: str = "") -> Response:
    posted = ctx.method == "POST"
    checked = {name: (ctx.flag(name) if posted else default) for name, _label, default in OPTIONS}
    return await render(
        ctx,
        "block.html",
        "Block user",
        target=ctx.param("wpTarget") or ctx.subpage,
        expiries=EXPIRY_CHOICES,
        expiry=ctx.param("wpExpiry", "infinite"),
        expiry_other=ctx.param("wpExpiry-other"),
        reason=ctx.param("wpReason-other"),
        options=OPTIONS,
        checked=checked,
        partial=ctx.param("wpEditingRestriction") == "partial",
        page_restrictions=ctx.param("wpPageRestrictions"),
        hide=ctx.flag("wpHideUser"),
        may_hide=ctx.reader.allowed("hideuser"),
        error=error,
    )


async def _target(ctx: SpecialContext, text: str) -> tuple[str, int]:
    name = text.strip()
    if is_ip_or_range(name):
        return sanitize_target(name), 0
    title = ctx.title_of(name)
    account = await ctx.db.read(account_by_name, title.dbkey.replace("_", " ")) if title else None
    if account is None:
        raise ChangeError("nosuchuser", web_text("nosuchusershort", name))
    return account.name, account.id


async def _pages(ctx: SpecialContext, text: str) -> list[tuple[int, Title]]:
    found = []
    for line in text.splitlines():
        title = ctx.title_of(line.strip()) if line.strip() else None
        if title is None:
            continue
        rows = await ctx.db.read(pages_by_titles, [(title.ns, title.dbkey)])
        if rows:
            found.append((int(rows[0]["page_id"]), title))
    return found


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.allowed("block"):
        return await permission_error(ctx, "block users", badaccess(ctx.site, "block"))
    own = await block_of(ctx, None)
    if own is not None:
        return await block_notice(ctx, own)
    if ctx.method != "POST":
        return await _form(ctx)
    if not ctx.token_ok():
        return await _form(ctx, error=session_failure())
    hide = ctx.flag("wpHideUser")
    if hide and not ctx.reader.allowed("hideuser"):
        return await permission_error(ctx, "hide users", badaccess(ctx.site, "hideuser"))
    try:
        target, user_id = await _target(ctx, ctx.param("wpTarget"))
        expiry_text = ctx.param("wpExpiry", "infinite")
        if expiry_text == "other":
            expiry_text = ctx.param("wpExpiry-other").strip()
        try:
            expiry = checked_expiry(expiry_text, now14())
        except ChangeError as exc:
            # The form's own words for an expiry it cannot read (the API's are the change's).
            key = "ipb_expiry_old" if exc.code == "pastexpiry" else "ipb_expiry_invalid"
            raise ChangeError(exc.code, web_text(key)) from exc
        partial = ctx.param("wpEditingRestriction") == "partial"
        request = BlockRequest(
            target=target,
            user_id=user_id,
            expiry=expiry,
            duration=expiry_text,
            reason=ctx.param("wpReason-other")[:500],
            anononly=user_id == 0 and not ctx.flag("wpHardBlock"),
            nocreate=ctx.flag("wpCreateAccount"),
            autoblock=ctx.flag("wpAutoBlock"),
            noemail=ctx.flag("wpDisableEmail"),
            hidename=hide,
            allowusertalk=not ctx.flag("wpDisableUTEdit"),
            partial=partial,
            pages=await _pages(ctx, ctx.param("wpPageRestrictions")) if partial else [],
        )
        await ctx.db.write(do_block, ctx.performer(), request, ctx.site)
    except ChangeError as exc:
        # HTMLForm shows the form again with the error, at 200.
        return await _form(ctx, error=exc.text)
    text = await wikitext_html(
        ctx,
        f"[[Special:Contributions/{target}|{target}]] has been blocked.<br />"
        "See the [[Special:BlockList|block list]] to review blocks.",
    )
    return await render(
        ctx, "message.html", "Block succeeded", box="mw-message-box", text=Markup(text)
    )


PAGE = SpecialPage("Block", "Block user", "users", handle, "block")
