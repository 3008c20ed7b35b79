"""The chat's browser pages: the login form and the client's shell at `/`, sign-out, static files.

The shell is the same for every user: the client builds everything else from `POST /json/register`.
Sign-in checks the password exactly as `fetch_api_key` does (and counts against the same limit);
the session then lives in the shared store of `core`.
"""

from __future__ import annotations

import math
import re
import secrets
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from atrium.chat.actions.login_mail import mail_new_login
from atrium.chat.auth import SERVICE, browser_session, session_user
from atrium.chat.errors import ChatError
from atrium.chat.queries.realm import default_realm
from atrium.chat.runtime import ChatRuntime
from atrium.chat.views.server import password_login
from atrium.chat.web.assets import STATIC_PREFIX, Assets
from atrium.chat.web.emoji_font import FONT_PREFIX
from atrium.chat.web.neighbours import wiki_home
from atrium.core.body_limit import bounded
from atrium.core.db import Conn
from atrium.core.page_headers import PAGE_HEADERS, origin_of, page_headers
from atrium.core.session_cookies import (
    LOGIN_CSRF_COOKIE,
    SESSION_COOKIE,
    clear_cookie,
    read_cookie,
    same_origin,
    session_token,
    set_cookie,
    set_session_cookie,
    tokens_match,
)

TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent / "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
)
# The optional endpoints the client uses when the server has them, by route (parameters blanked).
FEATURE_PATHS = {
    "reactions": "/messages/{}/reactions",
    "typing": "/typing",
    "presence": "/users/me/presence",
    "uploads": "/user_uploads",
    "topics": "/users/me/{}/topics",
}
# The login form's CSRF cookie only has to outlive someone typing a password.
LOGIN_CSRF_SECONDS = 3600


def _realm_name(conn: Conn) -> str:
    realm = default_realm(conn)
    return realm.name if realm is not None else "Atrium"


def _page(
    name: str, status: int = 200, headers: dict[str, str] = PAGE_HEADERS, **context: Any
) -> HTMLResponse:
    html = TEMPLATES.get_template(name).render(**context)
    return HTMLResponse(html, status_code=status, headers=headers)


def _root_head(request: Request) -> Markup:
    """What the other services add to the head of the site root (`/`), trusted markup they
    build from settings alone."""
    return Markup(getattr(request.app.state, "root_head", ""))


def features(api_paths: set[str]) -> str:
    blanked = {re.sub(r"\{[^}]*\}", "{}", path) for path in api_paths}
    return " ".join(name for name, path in FEATURE_PATHS.items() if path in blanked)


class ChatPages:
    def __init__(self, runtime: ChatRuntime, assets: Assets, api_paths: set[str]) -> None:
        self.runtime = runtime
        self.assets = assets
        self.features = features(api_paths)

    @property
    def base_url(self) -> str:
        return self.runtime.settings.base_url

    async def _login_page(
        self, request: Request, *, error: str = "", username: str = "", status: int = 200
    ) -> Response:
        token = read_cookie(request, LOGIN_CSRF_COOKIE, self.base_url) or secrets.token_urlsafe(32)
        response = _page(
            "login.html",
            status,
            root_head=_root_head(request),
            assets=self.assets,
            realm_name=await self.runtime.db.read(_realm_name),
            error=error,
            username=username,
            csrf_token=token,
            by_name=self.runtime.accounts is not None and "wiki" in self.runtime.settings.services,
        )
        set_cookie(response, LOGIN_CSRF_COOKIE, token, self.base_url, LOGIN_CSRF_SECONDS)
        return response

    async def home(self, request: Request) -> Response:
        session = await browser_session(self.runtime, request)
        user = await session_user(self.runtime, session) if session is not None else None
        if session is None or user is None:
            return await self._login_page(request)
        return _page(
            "app.html",
            # Messages show external images and videos through the Camo proxy, if any.
            headers=page_headers(origin_of(self.runtime.settings.camo_url)),
            root_head=_root_head(request),
            assets=self.assets,
            realm_name=await self.runtime.db.read(_realm_name),
            csrf_token=session.csrf_token,
            features=self.features,
            wiki_home=wiki_home(self.runtime.db),
            full_name=user.full_name,
        )

    async def login_form(self, request: Request) -> Response:
        if await browser_session(self.runtime, request) is not None:
            return RedirectResponse("/", 303)
        return await self._login_page(request)

    async def login(self, request: Request) -> Response:
        form = await request.form()
        username = str(form.get("username") or "").strip()
        password = str(form.get("password") or "")
        given = str(form.get("csrf_token") or "")
        expected = read_cookie(request, LOGIN_CSRF_COOKIE, self.base_url)
        if not tokens_match(expected, given) or not same_origin(request, self.base_url):
            return await self._login_page(
                request,
                error="The sign-in form had expired. Please try again.",
                username=username,
                status=403,
            )
        if not username or not password:
            return await self._login_page(
                request, error="Enter your email and password.", username=username, status=400
            )
        try:
            address = request.client.host if request.client else ""
            row = await password_login(self.runtime, username, password, address)
        except ChatError as error:
            page = await self._login_page(
                request, error=_login_message(error), username=username, status=error.status
            )
            page.headers.update(error.headers)  # a throttled try says when to come back
            return page
        if row["is_bot"]:
            return await self._login_page(
                request, error="Bots cannot sign in here.", username=username, status=403
            )
        assert self.runtime.sessions is not None
        token, _session = await self.runtime.sessions.sign_in(
            SERVICE,
            int(row["id"]),
            previous_token=session_token(request),
            user_agent=request.headers.get("user-agent", ""),
        )
        await self.runtime.write(
            mail_new_login,
            self.runtime.composer,
            self.runtime.secret,
            int(row["id"]),
            request.headers.get("user-agent", ""),
            address,
        )
        response = RedirectResponse("/", 303, headers={"Cache-Control": "no-store"})
        set_session_cookie(response, token, self.base_url)
        clear_cookie(response, LOGIN_CSRF_COOKIE, self.base_url)
        return response

    async def logout(self, request: Request) -> Response:
        session = await browser_session(self.runtime, request)
        form = await request.form()
        response = RedirectResponse("/", 303, headers={"Cache-Control": "no-store"})
        if session is None:
            # Nothing to sign out of. The cookie stays: a cross-site POST carries no Lax cookie,
            # and clearing it here would let any site sign its visitors out.
            return response
        if not tokens_match(session.csrf_token, str(form.get("csrf_token") or "")):
            return HTMLResponse(
                "Sign-out refused: the form did not carry this session's token.",
                status_code=403,
                headers=PAGE_HEADERS,
            )
        assert self.runtime.sessions is not None
        await self.runtime.sessions.sign_out(session_token(request))
        clear_cookie(response, SESSION_COOKIE, self.base_url)
        return response

    async def static(self, request: Request) -> Response:
        return self.assets.response(request)


def _login_message(error: ChatError) -> str:
    if error.code == "RATE_LIMIT_HIT":
        minutes = max(1, math.ceil(float(error.data.get("retry-after", 60)) / 60))
        return f"Too many sign-in attempts for this account. Try again in {minutes} minutes."
    if error.code == "AUTHENTICATION_FAILED":
        return "Wrong email or password."
    return error.msg


def web_routes(runtime: ChatRuntime, api_paths: set[str], assets: Assets) -> list[BaseRoute]:
    """`/` (login or the client), sign-in and sign-out, the client's files; `api_paths` are the
    chat API's routes, from which the client learns which optional features exist."""
    if runtime.sessions is None:
        return []
    font = assets.emoji_font
    pages = ChatPages(runtime, assets, api_paths)
    limit = runtime.settings.max_body_bytes
    return [
        Route("/", pages.home, methods=["GET", "HEAD"]),
        Route("/login", pages.login_form, methods=["GET", "HEAD"]),
        Route("/login", bounded(pages.login, limit), methods=["POST"]),
        Route("/logout", bounded(pages.logout, limit), methods=["POST"]),
        Route(STATIC_PREFIX + "{name}", pages.static, methods=["GET", "HEAD"]),
        Route(FONT_PREFIX + "{version}/{name}", font.response, methods=["GET", "HEAD"]),
    ]
