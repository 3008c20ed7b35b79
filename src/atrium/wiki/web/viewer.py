"""Who is looking at a page: the wiki account the browser's session (the shared store of `core`)
is signed in to, or an anonymous reader named by IP, and the CSRF token the page's forms carry.

A signed-in browser's forms carry its session's CSRF token. An anonymous browser has no session:
its forms carry a random token that is also in a cookie (double submit), as the login form needs.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from atrium.core.accounts import account_links
from atrium.core.db import Database
from atrium.core.session_cookies import (
    LOGIN_CSRF_COOKIE,
    read_cookie,
    same_origin,
    session_token,
    set_cookie,
    tokens_match,
)
from atrium.core.sessions import BrowserSession, SessionStore
from atrium.wiki.accounts.audience import anonymous_rights
from atrium.wiki.reads.linked import as_member
from atrium.wiki.reads.sessions import BROWSER_SERVICE
from atrium.wiki.reads.users import Account, account_by_id, anonymous, options
from atrium.wiki.site import Site
from atrium.wiki.web import dates as date_style
from atrium.wiki.web.dates import DEFAULT_STYLE, DateStyle

SERVICE = BROWSER_SERVICE
# The anonymous form token only has to outlive someone filling in a form.
ANON_CSRF_SECONDS = 3600


@dataclass(frozen=True)
class Viewer:
    account: Account  # anonymous (id 0, the IP) when not signed in
    session: BrowserSession | None  # the browser's session, signed in to the wiki or not
    csrf_token: str
    # True when the anonymous token is new and the response must set its cookie.
    new_anon_token: bool = False
    dates: DateStyle = DEFAULT_STYLE  # how the viewer reads times
    responsive: bool = True  # the `skin-responsive` preference: fit narrow screens

    @property
    def signed_in(self) -> bool:
        return self.account.registered


def session_store(request: Request) -> SessionStore | None:
    """The shared store (`server.create_app` puts it on the app's state)."""
    store = getattr(request.app.state, "sessions", None)
    return store if isinstance(store, SessionStore) else None


def site_audience(request: Request) -> str:
    """The wiki's audience, which the service's handlers put on every request before anything
    looks at the viewer; a request without it is treated as a private wiki's (closed by
    default)."""
    return str(getattr(request.state, "wiki_audience", "private"))


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "127.0.0.1"


async def current_viewer(request: Request, db: Database) -> Viewer:
    """The viewer of this request, looked up once per request."""
    cached = getattr(request.state, "wiki_viewer", None)
    if isinstance(cached, Viewer):
        date_style.use(cached.dates)
        return cached
    session: BrowserSession | None = None
    account: Account | None = None
    store = session_store(request)
    if store is not None:
        session = await store.get(session_token(request))
    user_id = session.user_id(SERVICE) if session is not None else None
    if user_id is not None:
        account = await db.read(account_by_id, user_id)
        account = await as_member(account_links(request), account) if account else None
    if account is not None and session is not None:
        prefs = await db.read(options, account.id)
        viewer = Viewer(
            account, session, session.csrf_token, dates=date_style.style_of(prefs),
            responsive=str(prefs.get("skin-responsive", 1)) not in ("0", "", "False"),
        )  # fmt: skip
    else:
        token = read_cookie(request, LOGIN_CSRF_COOKIE)
        fresh = not token or len(token) > 100
        reader = anonymous(client_ip(request))
        # `$wgGroupPermissions['*']` as the audience sets it.
        reader.allowed_rights = anonymous_rights(site_audience(request))
        viewer = Viewer(
            reader,
            session,
            secrets.token_urlsafe(32) if fresh or token is None else token,
            new_anon_token=fresh,
        )
    request.state.wiki_viewer = viewer
    date_style.use(viewer.dates)
    return viewer


def csrf_ok(request: Request, site: Site, viewer: Viewer, given: str | None) -> bool:
    """A state-changing form's token is the viewer's, and the browser did not post it from
    another origin."""
    if viewer.new_anon_token:
        return False
    return tokens_match(viewer.csrf_token, given) and same_origin(request, site.server)


def remember_anon_token(response: Response, site: Site, viewer: Viewer) -> None:
    if viewer.new_anon_token:
        set_cookie(response, LOGIN_CSRF_COOKIE, viewer.csrf_token, site.server, ANON_CSRF_SECONDS)
