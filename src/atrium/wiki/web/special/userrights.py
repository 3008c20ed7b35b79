"""`Special:UserRights/<user>`: a user's groups, and for those who may change them (bureaucrats)
a checkbox per group they may add or remove, with a reason. A post needs the session's token and
runs the same change as the API's `action=userrights`. A hidden user is "not found" to readers
without `hideuser`."""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from atrium.core.accounts import account_links
from atrium.wiki.accounts.rights import changeable_groups
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.admin import change_groups
from atrium.wiki.changes.expiry import INFINITY
from atrium.wiki.changes.protection import GROUP_PAGES, badaccess
from atrium.wiki.reads.users import Account, account_by_name, is_hidden
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, bad_token, permission_error, render
from atrium.wiki.web.texts import text as web_text


async def _target(ctx: SpecialContext, text: str) -> Account | None:
    title = ctx.title_of(text) if text else None
    if title is None:
        return None
    account = await ctx.db.read(account_by_name, title.dbkey.replace("_", " "))
    if account is None:
        return None
    if not ctx.reader.allowed("hideuser") and await ctx.db.read(is_hidden, account.id):
        return None
    return account


async def handle(ctx: SpecialContext) -> Response:
    text = (ctx.param("user") or ctx.subpage).strip()
    target = await _target(ctx, text)
    own = ctx.reader.all_groups if ctx.reader.allowed("userrights") else []
    changeable = changeable_groups(own)
    may_change = bool(changeable["add"] or changeable["remove"])
    if ctx.method == "POST":
        if not may_change:
            return await permission_error(
                ctx, "change user rights", badaccess(ctx.site, "userrights")
            )
        if not ctx.token_ok():
            return await bad_token(ctx)
        # UserrightsPage shows the form again with its error, at 200, for every refusal.
        if target is None:
            return await render(
                ctx, "userrights.html", "User rights", 200, text=text, target=None,
                groups=[], may_change=may_change, error=web_text("nosuchusershort", text),
            )  # fmt: skip
        held = set(target.groups)
        add = [
            (g, INFINITY) for g in changeable["add"] if ctx.flag(f"wpGroup-{g}") and g not in held
        ]
        remove = [g for g in changeable["remove"] if g in held and not ctx.flag(f"wpGroup-{g}")]
        # The groups a workspace member's chat role implies are the chat's to change.
        links = account_links(ctx.request)
        locked = await links.locked_groups("wiki", target.id) if links else frozenset()
        if locked & set(remove):
            kept = ", ".join(sorted(locked & set(remove)))
            return await render(
                ctx, "userrights.html", "User rights", 200, text=text, target=target,
                groups=[], may_change=may_change,
                error=f"The groups {kept} follow this user's role in the chat; change the role there.",
            )  # fmt: skip
        try:
            await ctx.db.write(
                change_groups, ctx.performer(), ctx.reader.all_groups, target.id, target.name,
                add, remove, ctx.param("user-reason")[:500], ctx.site,
            )  # fmt: skip
        except ChangeError as exc:
            return await render(
                ctx, "userrights.html", "User rights", 200, text=text, target=target,
                groups=[], may_change=may_change, error=exc.text,
            )  # fmt: skip
        return RedirectResponse(
            Links(ctx.site).special("UserRights/" + target.name), status_code=303
        )
    groups = []
    if target is not None:
        names = sorted(set(changeable["add"]) | set(target.groups))
        groups = [
            (g, GROUP_PAGES.get(g, g), g in target.groups, g in changeable["add"]) for g in names
        ]
    return await render(
        ctx,
        "userrights.html",
        "User rights" if may_change else "User groups",
        200,
        text=text,
        target=target,
        groups=groups,
        may_change=may_change,
        error=web_text("nosuchusershort", text) if text and target is None else "",
    )


PAGE = SpecialPage("UserRights", "User rights", "users", handle)
