"""`index.php?action=protect` (ProtectionForm): the page's edit and move protection (creation
protection for a missing page), with an expiry and a reason. Readers without the `protect`
right see the current settings; a post needs the right, the session's token and no block, and
runs the same change as the API's `action=protect`."""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from atrium.core.db import Conn
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.expiry import checked_expiry
from atrium.wiki.changes.pageops import Protection, protect
from atrium.wiki.changes.protection import LEVELS, badaccess, page_row, restriction_of
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import NS_FILE, Title
from atrium.wiki.web.special.blocknotice import block_notice, block_of
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    message_page,
    permission_error,
    render,
    session_failure,
)
from atrium.wiki.web.texts import text as web_text

LEVEL_NAMES = {
    "": "Allow all users",
    "autoconfirmed": "Allow only autoconfirmed users",
    "sysop": "Allow only administrators",
}
EXPIRY_CHOICES = ("infinite", "1 hour", "1 day", "1 week", "2 weeks", "1 month", "3 months",
                  "6 months", "1 year")  # fmt: skip


def _actions(title: Title, exists: bool) -> tuple[str, ...]:
    if not exists:
        return ("create",)
    return ("edit", "move", "upload") if title.ns == NS_FILE else ("edit", "move")


async def _current(ctx: SpecialContext, title: Title, actions: tuple[str, ...]) -> dict[str, str]:
    def read(conn: Conn) -> dict[str, str]:
        return {a: restriction_of(conn, title, a) or "" for a in actions}

    return await ctx.db.read(read)


async def _form(
    ctx: SpecialContext, title: Title, actions: tuple[str, ...], current: dict[str, str],
    error: str = "",
) -> Response:  # fmt: skip
    may = ctx.reader.allowed("protect")
    name = Links(ctx.site).name(title)
    return await render(
        ctx,
        "protect.html",
        f'Change protection level for "{name}"' if may else f'View protection level of "{name}"',
        title=title,
        name=name,
        may=may,
        actions=actions,
        current=current,
        levels=[(level, LEVEL_NAMES[level]) for level in LEVELS],
        expiries=EXPIRY_CHOICES,
        error=error,
        reason=ctx.param("mwProtect-reason"),
    )


async def handle(ctx: SpecialContext) -> Response:
    title = ctx.target or ctx.subpage_title()
    if title is None:
        return await message_page(
            ctx, "Bad title", "The requested page title is empty or invalid.", 400
        )
    exists = await ctx.db.read(page_row, title) is not None
    actions = _actions(title, exists)
    current = await _current(ctx, title, actions)
    if ctx.method != "POST":
        return await _form(ctx, title, actions, current)
    if not ctx.reader.allowed("protect"):
        return await permission_error(
            ctx, "change protection levels", badaccess(ctx.site, "protect")
        )
    if not ctx.token_ok():
        return await _form(ctx, title, actions, current, error=session_failure())
    block = await block_of(ctx, title)
    if block is not None:
        return await block_notice(ctx, block)
    items = []
    now = now14()
    try:
        for action in actions:
            level = ctx.param(f"mwProtect-level-{action}")
            if level not in LEVELS:
                raise ChangeError("protect-invalidlevel", f'Invalid protection level "{level}".')
            expiry_text = ctx.param(f"mwProtect-{action}-expires").strip() or ctx.param(
                f"wpProtectExpirySelection-{action}", "infinite"
            )
            try:
                expiry = checked_expiry(expiry_text, now) if level else "infinity"
            except ChangeError as exc:
                # ProtectionForm's words for an expiry it cannot read.
                key = "protect_expiry_old" if exc.code == "pastexpiry" else "protect_expiry_invalid"
                raise ChangeError(exc.code, web_text(key)) from exc
            items.append(Protection(action, level, expiry))
        reason = ctx.param("mwProtect-reason")[:500]
        cascade = ctx.flag("mwProtect-cascade")
        await ctx.db.write(protect, ctx.site, ctx.performer(), title, items, reason, cascade)
    except ChangeError as exc:
        shown = {i.action: i.level for i in items} | {
            a: ctx.param(f"mwProtect-level-{a}") for a in actions if a not in current
        }
        # The form shown again with the error, at 200, as ProtectionForm does.
        return await _form(ctx, title, actions, current | shown, error=exc.text)
    return RedirectResponse(Links(ctx.site).page(title), status_code=303)


PAGE = SpecialPage("Protect", "Change protection level", "pagetools", handle, "protect")
