"""Who a browser's session is in each service. Until one identity links a chat user and a wiki
user, the browser session store is the only link: a session signed in to both services is the
same person in both; anything else is a stranger to the other service."""

from __future__ import annotations

from starlette.requests import Request

from atrium.chat.auth import session_user
from atrium.chat.models import User
from atrium.chat.runtime import ChatRuntime
from atrium.core.session_cookies import session_token
from atrium.core.sessions import BrowserSession, SessionStore
from atrium.wiki.reads.sessions import BROWSER_SERVICE as WIKI_SERVICE


async def browser_session(store: SessionStore | None, request: Request) -> BrowserSession | None:
    if store is None:
        return None
    return await store.get(session_token(request))


def wiki_reader_of(session: BrowserSession | None) -> int | None:
    """The wiki user a browser session is signed in as (None: an anonymous wiki reader)."""
    return session.user_id(WIKI_SERVICE) if session is not None else None


async def chat_user_of(chat: ChatRuntime, session: BrowserSession | None) -> User | None:
    """The active chat user a browser session is signed in as, if any."""
    if session is None:
        return None
    return await session_user(chat, session)
