"""The sign-up page an invitation link opens: GET shows the form, POST creates the account.

CSRF: the form carries a random token that must equal the `csrftoken` cookie set with the page
(SameSite=Strict, HttpOnly), so another site cannot post the form on a visitor's behalf. The page
has no script and no inline style, and its Content-Security-Policy allows none.
"""

from __future__ import annotations

import functools
import secrets
from typing import Any

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from atrium.chat.actions.invites import MIN_PASSWORD_LENGTH, accept_invitation
from atrium.chat.errors import ChatError
from atrium.chat.queries.invites import usable_invitation
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.users import fake_email_domain
from atrium.chat.runtime import ChatRuntime
from atrium.core import workers
from atrium.core.body_limit import bounded
from atrium.core.db import Conn
from atrium.core.secrets import constant_time_equals, hash_password
from atrium.core.session_cookies import read_cookie, set_cookie

CSRF_COOKIE = "csrftoken"
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


@functools.cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("atrium.chat.web", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )


def _page(
    status: int = 200,
    csrf: str | None = None,
    common: dict[str, Any] | None = None,
    **more: Any,
) -> Response:
    context = {**(common or {}), **more}
    defaults: dict[str, Any] = {
        "expired": False,
        "created": False,
        "error": "",
        "email": "",
        "full_name": "",
        "fixed_email": "",
        "csrf_token": csrf or "",
        "action": "",
        "realm_name": "",
        "realm_url": "",
        "min_password_length": MIN_PASSWORD_LENGTH,
    }
    html = _templates().get_template("signup.html").render(**{**defaults, **context})
    response = HTMLResponse(html, status_code=status, headers=_HEADERS)
    if csrf is not None:
        # realm_url is the public base URL: under https the cookie is Secure and `__Host-`.
        base_url = str(context.get("realm_url", ""))
        set_cookie(response, CSRF_COOKIE, csrf, base_url, None, samesite="strict")
    return response


def signup_routes(runtime: ChatRuntime) -> list[BaseRoute]:
    def invitation(conn: Conn, token: str) -> tuple[Any, str]:
        row = usable_invitation(conn, token)
        if row is None:
            return None, ""
        return row, load_realm(conn, row["realm_id"]).name

    async def signup(request: Request) -> Response:
        token = request.path_params["token"]
        action = f"/join/{token}/"
        row, realm_name = await runtime.db.read(invitation, token)
        if row is None:
            return _page(404, expired=True)
        common: dict[str, Any] = {
            "action": action,
            "realm_name": realm_name,
            "fixed_email": row["email"] or "",
            "realm_url": runtime.settings.base_url,
        }
        if request.method != "POST":
            return _page(csrf=secrets.token_urlsafe(32), common=common)
        form = await request.form()
        values = {k: v for k, v in form.items() if isinstance(v, str)}
        cookie = read_cookie(request, CSRF_COOKIE, runtime.settings.base_url) or ""
        sent = values.get("csrf_token", "")
        if not cookie or not sent or not constant_time_equals(cookie, sent):
            return _page(
                403,
                csrf=secrets.token_urlsafe(32),
                error="The form expired; please try again.",
                **common,
            )
        email, full_name = values.get("email", ""), values.get("full_name", "")
        password = values.get("password", "")
        hashed = await workers.run(hash_password, password) if password else None
        if runtime.accounts is not None and (row["email"] or email.strip()):
            # The person's identity first; their chat user, then their wiki user, follow.
            await runtime.accounts.reserve(row["email"] or email.strip(), hashed)
        try:
            await runtime.write(
                accept_invitation,
                token,
                email,
                full_name,
                password,
                fake_email_domain(runtime.settings.base_url),
                hashed,
            )
        except ChatError as error:
            if error.status == 404:
                return _page(404, expired=True)
            return _page(
                400,
                csrf=secrets.token_urlsafe(32),
                error=error.msg,
                email=email,
                full_name=full_name,
                common=common,
            )
        return _page(
            email=row["email"] or email.strip(),
            full_name=full_name.strip(),
            created=True,
            realm_name=realm_name,
            realm_url=runtime.settings.base_url,
        )

    limit = runtime.settings.max_body_bytes
    return [Route("/join/{token}/", bounded(signup, limit), methods=["GET", "HEAD", "POST"])]
