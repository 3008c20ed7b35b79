"""`index.php?action=rollback&from=<user>&token=<rollback token>`: MediaWiki's RollbackAction,
which the "rollback N edits" links lead to. The change is the API's `action=rollback`
(`pageops.rollback`); the token in the link is the session's rollback token, so another site
cannot make a signed-in browser roll a page back. A hidden last author is never named and
cannot be rolled back from here, as in MediaWiki, whose check compares the public name.
"""

from __future__ import annotations

from markupsafe import Markup
from starlette.responses import Response

from atrium.core.db import Conn
from atrium.core.session_cookies import same_origin
from atrium.wiki.changes import ChangeError, rendered_edit
from atrium.wiki.changes.pageops import RolledBack
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.diff import table_rows
from atrium.wiki.reads import comparing
from atrium.wiki.reads import page_view as reading
from atrium.wiki.reads.sessions import TOKEN_SALTS, check_token
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.edit_permission import edit_refusal
from atrium.wiki.web.special.blocknotice import block_notice
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    message_page,
    permission_error,
    render,
    wikitext_html,
)
from atrium.wiki.web.visibility import DELETED_TEXT, DELETED_USER, can_see
from atrium.wiki.wikitext.escaping import escape_wikitext

FAILED = "Rollback failed"


def _user_tools(name: str | None) -> str:
    """Linker::revUserTools as wikitext: the user's page and talk page, or MediaWiki's mark
    for a removed name."""
    if name is None:
        return "(username removed)"
    shown = escape_wikitext(name)
    return f"[[User:{shown}|{shown}]] ([[User talk:{shown}|talk]])"


async def _failed(ctx: SpecialContext, wikitext: str) -> Response:
    """RollbackAction's ErrorPageError ("Rollback failed"), which answers 200."""
    return await message_page(ctx, FAILED, wikitext, 200)


def _top(conn: Conn, page_id: int) -> tuple[str, int] | None:
    rows = reading.history(conn, page_id, 1)
    return (str(rows[0]["actor_name"]), int(rows[0]["rev_deleted"] or 0)) if rows else None


async def handle(ctx: SpecialContext) -> Response:
    title = ctx.target
    if title is None:
        return await message_page(
            ctx, "Bad title", "The requested page title is empty or invalid.", 400
        )
    reader = ctx.reader
    if not reader.registered or not reader.allowed("rollback"):
        return await permission_error(
            ctx, "roll back edits to this page", badaccess(ctx.site, "rollback")
        )
    who = ctx.performer()
    found = await ctx.db.read(reading.current_text, title.ns, title.dbkey)
    refused = await ctx.db.read(edit_refusal, ctx.site, title, who, found is not None)
    if refused is not None and refused.block is not None:
        return await block_notice(ctx, refused.block)
    if refused is not None:
        return await permission_error(
            ctx, "roll back edits to this page", ChangeError("permissiondenied", refused.reason)
        )
    user = ctx.param("from")
    if not user:
        return await _failed(ctx, "Missing required parameters on request.")
    if found is None:
        return await _failed(ctx, "Unable to load revision data.")
    token_ok = check_token(
        ctx.viewer.csrf_token, TOKEN_SALTS["rollback"], ctx.param("token"), False
    ) and same_origin(ctx.request, ctx.site.server)
    if not token_ok:
        return await message_page(
            ctx,
            "Session failure",
            "There seems to be a problem with your login session; this action has been "
            "canceled as a precaution against session hijacking. Go back to the previous page, "
            "reload that page and then try again.",
            200,
        )
    top = await ctx.db.read(_top, found[0])
    assert top is not None
    last, deleted = top
    public_last = last if not deleted & DELETED_USER else ""
    if public_last != user:
        # Someone else edited since, or the last author is hidden (never named here).
        seen = last if can_see(reader, deleted, DELETED_USER) else None
        page = escape_wikitext(Links(ctx.site).name(title))
        return await _failed(
            ctx,
            f"Cannot rollback the last edit of [[:{page}]] by {_user_tools(user)}. Someone "
            "else has edited or rolled back the page already.\n\nThe last edit to the page was "
            f"by {_user_tools(seen)}.",
        )
    try:
        done = await rendered_edit.rollback(
            ctx.db, ctx.site, who, title, user, ctx.param("summary")[:500], ctx.flag("bot")
        )
    except ChangeError as exc:
        return await _failed(ctx, exc.text)
    return await _success(ctx, done, user)


async def _success(ctx: SpecialContext, done: RolledBack, user: str) -> Response:
    """MediaWiki's "Action complete": who was reverted to whom, the way back to the page, and
    the diff the rollback made (text the reader may not see is left out)."""
    # `old_revid` is the last author's revision rolled back, `last_revid` the one restored.
    old = await ctx.db.read(comparing.revision, ctx.site, done.old_revid)
    new = await ctx.db.read(comparing.revision, ctx.site, done.rev_id)
    target = await ctx.db.read(comparing.revision, ctx.site, done.last_revid)
    assert old is not None and new is not None and target is not None
    reader = ctx.reader
    restored = target.user if can_see(reader, target.deleted, DELETED_USER) else None
    title = new.title
    page = escape_wikitext(Links(ctx.site).name(title))
    text = await wikitext_html(
        ctx,
        f"Reverted edits by {_user_tools(user)};\nchanged back to last revision by "
        f"{_user_tools(restored)}.\n\nReturn to [[:{page}]].",
    )
    show_diff = can_see(reader, old.deleted, DELETED_TEXT) and can_see(
        reader, new.deleted, DELETED_TEXT
    )
    return await render(
        ctx,
        "rollback_done.html",
        "Action complete",
        text=Markup(text),
        show_diff=show_diff,
        diff_rows=Markup(table_rows(old.text, new.text) if show_diff else ""),
        old=old,
        new=new,
        old_time=local_time(old.timestamp),
        new_time=local_time(new.timestamp),
    )


PAGE = SpecialPage("Rollback", "Rollback", "pagetools", handle, "rollback")
