"""A user reading their own talk page has seen its new messages: the page view clears the
new-talk notification of the caller its browser session (or API session cookie) names (an IP
address when logged out)."""

from __future__ import annotations

from starlette.requests import Request

from atrium.core.db import Database
from atrium.core.session_cookies import read_cookie
from atrium.wiki.changes import newtalk
from atrium.wiki.reads.newtalk import has_new_talk
from atrium.wiki.reads.sessions import SESSION_COOKIE, load_session
from atrium.wiki.titles import NS_USER_TALK, Title
from atrium.wiki.web.viewer import current_viewer


async def clear_if_own_talk(request: Request, db: Database, title: Title) -> None:
    if title.ns != NS_USER_TALK:
        return
    user_id: int | None = None
    name = request.client.host if request.client else ""
    viewer = await current_viewer(request, db)
    session_id = read_cookie(request, SESSION_COOKIE)
    if viewer.signed_in:
        user_id, name = int(viewer.account.id), viewer.account.name
    elif session_id:
        _session, account = await db.read(load_session, session_id)
        if account is not None:
            user_id, name = int(account.id), account.name
    if name != title.text:
        return
    ip = "" if user_id else name
    if await db.read(has_new_talk, user_id, ip):
        await db.write(newtalk.clear, user_id, ip)
