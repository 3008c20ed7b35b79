"""`Special:BotPasswords` (`/<bot name>`): a signed-in user's bot passwords — the list, and per
bot name a form to create it with grants, change its grants, reset its password or delete it.
A generated password is shown once, on the page that made it, and never cached. Changing or
deleting a bot password ends the sessions opened with it. Every post needs the session's token.
The IP and page restrictions of MediaWiki's form are not offered: logins here do not apply
them, so every bot password keeps MediaWiki's default (any address)."""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from atrium.wiki.accounts.grants import GRANT_RIGHTS, HIDDEN_GRANTS
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.bot_passwords import (
    delete_bot_password,
    insert_bot_password,
    update_bot_password,
)
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.reads.bot_passwords import bot_password_names
from atrium.wiki.reads.users import bot_password, bot_password_grants
from atrium.wiki.web.log_lines import message
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.msg import msg_html
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    bad_token,
    message_page,
    not_logged_in,
    permission_error,
    render,
)
from atrium.wiki.wikitext.escaping import escape_wikitext

APPID_MAXLENGTH = 32  # BotPassword::APPID_MAXLENGTH
SEPARATOR = "@"  # $wgUserrightsInterwikiDelimiter: what splits User@bot at login
SHOWN_GRANTS = [g for g in GRANT_RIGHTS if g not in HIDDEN_GRANTS]


def _valid_app_id(app_id: str) -> bool:
    return 0 < len(app_id.encode()) <= APPID_MAXLENGTH and SEPARATOR not in app_id


def _no_store(response: Response) -> Response:
    """Pages about passwords stay out of every cache."""
    response.headers["Cache-Control"] = "no-store, private"
    return response


async def _bad_app_id(ctx: SpecialContext, app_id: str) -> Response:
    """SpecialBotPasswords' ErrorPageError, read or posted: 200."""
    return await message_page(
        ctx, "Bot passwords", message("botpasswords-bad-appid", escape_wikitext(app_id)), 200
    )


async def _list(ctx: SpecialContext, error: str = "") -> Response:
    names = await ctx.db.read(bot_password_names, ctx.reader.id)
    return _no_store(
        await render(
            ctx,
            "botpasswords.html",
            "Bot passwords",
            app_id=None,
            names=names,
            summary=await msg_html(ctx, "botpasswords-summary"),
            error=error,
            new_app_id=ctx.param("appId"),
        )
    )


async def _edit(ctx: SpecialContext, app_id: str, error: str = "") -> Response:
    saved = await ctx.db.read(bot_password, ctx.reader.id, app_id) is not None
    granted = await ctx.db.read(bot_password_grants, ctx.reader.id, app_id) if saved else []
    if ctx.method == "POST":
        granted = _chosen(ctx)
    grants = [(g, message(f"grant-{g}"), g in granted) for g in SHOWN_GRANTS]
    return _no_store(
        await render(
            ctx,
            "botpasswords.html",
            "Bot passwords",
            app_id=app_id,
            saved=saved,
            login_name=f"{ctx.reader.name}{SEPARATOR}{app_id}",
            grants=grants,
            summary=await msg_html(ctx, "botpasswords-summary"),
            error=error,
            help=await msg_html(ctx, "botpasswords-help-grants"),
        )
    )


def _chosen(ctx: SpecialContext) -> list[str]:
    wanted = {v.removeprefix("grant-") for k, v in ctx.request_form_items() if k == "wpgrants[]"}
    return [g for g in SHOWN_GRANTS if g in wanted]


async def _done(ctx: SpecialContext, app_id: str, operation: str, password: str | None) -> Response:
    user = ctx.reader.name
    body = await msg_html(
        ctx, f"botpasswords-{operation}-body", escape_wikitext(app_id), escape_wikitext(user)
    )
    shown = None
    if password is not None:
        shown = await msg_html(
            ctx, "botpasswords-newpassword",
            escape_wikitext(f"{user}{SEPARATOR}{app_id}"), password, escape_wikitext(user),
            escape_wikitext(f"{app_id}{SEPARATOR}{password}"),
        )  # fmt: skip
    return _no_store(
        await render(
            ctx,
            "botpasswords_done.html",
            message(f"botpasswords-{operation}-title"),
            body=body,
            password=shown,
        )
    )


async def _post(ctx: SpecialContext, app_id: str | None) -> Response:
    op = ctx.param("op")
    links = Links(ctx.site)
    if app_id is None:
        if op != "new":
            return await _list(ctx)
        wanted = ctx.param("appId").strip()
        # The bot name is the sub-page of the page that edits it: it must come back from the
        # title unchanged.
        page = ctx.site.parser.parse_or_none(f"Special:BotPasswords/{wanted}")
        kept = page is not None and page.dbkey.partition("/")[2] == wanted.replace(" ", "_")
        if not _valid_app_id(wanted) or not kept:
            return await _list(ctx, message("botpasswords-bad-appid", wanted))
        target = links.special("BotPasswords/" + wanted.replace(" ", "_"))
        return RedirectResponse(target, status_code=303)
    user_id = ctx.reader.id
    grants = [*HIDDEN_GRANTS, *_chosen(ctx)]
    try:
        if op == "create":
            password = await ctx.db.write(insert_bot_password, user_id, app_id, grants)
            return await _done(ctx, app_id, "created", password)
        if op == "update":
            reset = ctx.flag("wpresetPassword")
            new = await ctx.db.write(update_bot_password, user_id, app_id, grants, reset)
            return await _done(ctx, app_id, "updated", new)
        if op == "delete":
            await ctx.db.write(delete_bot_password, user_id, app_id)
            return await _done(ctx, app_id, "deleted", None)
    except ChangeError as exc:
        # The form shown again with the error, at 200, as HTMLForm does.
        return await _edit(ctx, app_id, exc.text)
    if op == "cancel":
        return RedirectResponse(links.special("BotPasswords"), status_code=303)
    return await _edit(ctx, app_id)


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.registered:
        return await not_logged_in(ctx, "manage bot passwords")
    if not ctx.reader.allowed("editmyprivateinfo"):
        return await permission_error(
            ctx, "edit your private information", badaccess(ctx.site, "editmyprivateinfo")
        )
    app_id = ctx.subpage.strip() or None
    if app_id is not None and not _valid_app_id(app_id):
        return await _bad_app_id(ctx, app_id)
    if ctx.method == "POST":
        if not ctx.token_ok():
            return await bad_token(ctx)
        return await _post(ctx, app_id)
    if app_id is None:
        return await _list(ctx)
    return await _edit(ctx, app_id)


PAGE = SpecialPage("BotPasswords", "Bot passwords", "users", handle, "editmyprivateinfo")
