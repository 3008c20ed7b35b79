"""The password reset pages: ask for a link by address, then set a new password through it.

The request page answers the same whether or not the address has an account, and mails at most
a few links per address per hour (Zulip's `password_reset_form_by_email` limit), so the form can
neither probe for accounts nor flood someone's inbox. Forms carry the sign-in page's CSRF token.
"""

from __future__ import annotations

import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from atrium.chat.actions.invites import MIN_PASSWORD_LENGTH
from atrium.chat.actions.password_reset import (
    RESET_PATH,
    request_password_reset,
    reset_link_user,
    reset_password,
)
from atrium.chat.errors import ChatError
from atrium.chat.queries.realm import default_realm
from atrium.chat.runtime import ChatRuntime
from atrium.chat.web.assets import Assets
from atrium.chat.web.pages import LOGIN_CSRF_SECONDS, TEMPLATES
from atrium.core import workers
from atrium.core.body_limit import bounded
from atrium.core.db import Conn
from atrium.core.page_headers import PAGE_HEADERS
from atrium.core.secrets import hash_password
from atrium.core.session_cookies import LOGIN_CSRF_COOKIE, read_cookie, set_cookie, tokens_match

# Zulip's password_reset_form_by_email: two links an hour per address.
LINKS_PER_ADDRESS_PER_HOUR = 2
# Requests from one network address per hour, whatever the addresses asked for.
REQUESTS_PER_CLIENT_PER_HOUR = 30
MAX_EMAIL_LENGTH = 254


def _realm_name(conn: Conn) -> str:
    realm = default_realm(conn)
    return realm.name if realm is not None else "Atrium"


class PasswordResetPages:
    def __init__(self, runtime: ChatRuntime, assets: Assets) -> None:
        self.runtime = runtime
        self.assets = assets

    async def _page(self, request: Request, step: str, status: int = 200, **more: Any) -> Response:
        base_url = self.runtime.settings.base_url
        token = read_cookie(request, LOGIN_CSRF_COOKIE, base_url) or secrets.token_urlsafe(32)
        context = {
            "assets": self.assets,
            "realm_name": await self.runtime.db.read(_realm_name),
            "step": step,
            "error": "",
            "email": "",
            "action": "",
            "sink": not self.runtime.composer.sends_mail,
            "csrf_token": token,
            "min_password_length": MIN_PASSWORD_LENGTH,
            **more,
        }
        html = TEMPLATES.get_template("password_reset.html").render(**context)
        headers = {**PAGE_HEADERS, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
        response = HTMLResponse(html, status_code=status, headers=headers)
        set_cookie(response, LOGIN_CSRF_COOKIE, token, base_url, LOGIN_CSRF_SECONDS)
        return response

    def _csrf_ok(self, request: Request, form: Any) -> bool:
        expected = read_cookie(request, LOGIN_CSRF_COOKIE, self.runtime.settings.base_url)
        return tokens_match(expected, str(form.get("csrf_token") or ""))

    async def _allowed(self, key: str, per_hour: int) -> bool:
        if not self.runtime.settings.rate_limits.enabled:
            return True
        return (await self.runtime.limiter.hit(key, per_hour, 3600)).allowed

    async def request_form(self, request: Request) -> Response:
        if request.method != "POST":
            return await self._page(request, "request")
        form = await request.form()
        email = str(form.get("email") or "").strip()
        if not self._csrf_ok(request, form):
            error = "The form had expired. Please try again."
            return await self._page(request, "request", 403, error=error, email=email)
        if not email or len(email) > MAX_EMAIL_LENGTH or "@" not in email:
            error = "Enter a valid email address."
            return await self._page(request, "request", 400, error=error, email=email)
        client = request.client.host if request.client else ""
        if not await self._allowed(f"pwreset-client:{client}", REQUESTS_PER_CLIENT_PER_HOUR):
            error = "Too many password reset requests from here. Try again later."
            return await self._page(request, "request", 429, error=error, email=email)
        if await self._allowed(f"pwreset-email:{email.lower()}", LINKS_PER_ADDRESS_PER_HOUR):
            await self.runtime.write(
                request_password_reset, self.runtime.composer, self.runtime.secret, email
            )
        return RedirectResponse(RESET_PATH + "done/", 303)

    async def sent(self, request: Request) -> Response:
        return await self._page(request, "sent")

    async def set_password(self, request: Request) -> Response:
        token = request.path_params["token"]
        secret = self.runtime.secret
        if await self.runtime.db.read(reset_link_user, secret, token) is None:
            return await self._page(request, "expired", 404)
        action = f"{RESET_PATH}{token}/"
        if request.method != "POST":
            return await self._page(request, "set", action=action)
        form = await request.form()
        if not self._csrf_ok(request, form):
            error = "The form had expired. Please try again."
            return await self._page(request, "set", 403, error=error, action=action)
        first = str(form.get("new_password1") or "")
        if first != str(form.get("new_password2") or ""):
            error = "The two password fields didn't match."
            return await self._page(request, "set", 400, error=error, action=action)
        if len(first) < MIN_PASSWORD_LENGTH:
            error = f"The password must be at least {MIN_PASSWORD_LENGTH} characters long."
            return await self._page(request, "set", 400, error=error, action=action)
        hashed = await workers.run(hash_password, first)
        try:
            user_id = await self.runtime.write(reset_password, secret, token, first, hashed)
        except ChatError as error:
            if error.status == 404:
                return await self._page(request, "expired", 404)
            return await self._page(request, "set", 400, error=error.msg, action=action)
        if self.runtime.accounts is not None:
            # A workspace member's one password: the wiki's copy and the identity change too.
            await self.runtime.accounts.change_password("chat", user_id, first)
        return await self._page(request, "done")


def password_reset_routes(runtime: ChatRuntime, assets: Assets) -> list[BaseRoute]:
    if runtime.sessions is None:
        return []
    pages = PasswordResetPages(runtime, assets)
    limit = runtime.settings.max_body_bytes
    methods = ["GET", "HEAD", "POST"]
    return [
        Route(RESET_PATH, bounded(pages.request_form, limit), methods=methods),
        Route(RESET_PATH + "done/", pages.sent, methods=["GET", "HEAD"]),
        Route(RESET_PATH + "{token}/", bounded(pages.set_password, limit), methods=methods),
    ]
