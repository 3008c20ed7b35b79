"""The page an owner-setup link opens (`/setup/<token>`): GET shows the form, POST creates the
organization and its owner, once.

CSRF: the form carries a random token that must equal the `csrftoken` cookie set with the page
(SameSite=Strict, HttpOnly). The page has no script and no inline style, and its
Content-Security-Policy allows none; it is never cached, and sends no referrer (the link's token
is in its URL).
"""

from __future__ import annotations

import asyncio
import functools
import secrets
from typing import Any

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from atrium.core.body_limit import bounded
from atrium.core.secrets import constant_time_equals
from atrium.core.session_cookies import read_cookie, set_cookie
from atrium.ops import owner_setup
from atrium.ops.init import MIN_PASSWORD_LENGTH, InitError, Owner
from atrium.settings import Settings

CSRF_COOKIE = "csrftoken"
# Bounds on what the form takes, before anything else looks at it.
MAX_FIELD = {"email": 254, "full_name": 100, "password": 1024}
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
        loader=jinja2.PackageLoader("atrium.ops", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )


def _page(
    settings: Settings, status: int = 200, csrf: str | None = None, **context: Any
) -> Response:
    values: dict[str, Any] = {
        "expired": False,
        "created": False,
        "error": "",
        "email": "",
        "full_name": "",
        "wiki_name": "",
        "organization": "",
        "csrf_token": csrf or "",
        "action": "",
        "base_url": settings.base_url,
        "min_password_length": MIN_PASSWORD_LENGTH,
        **context,
    }
    html = _templates().get_template("setup.html").render(**values)
    response = HTMLResponse(html, status_code=status, headers=_HEADERS)
    if csrf is not None:
        set_cookie(response, CSRF_COOKIE, csrf, settings.base_url, None, samesite="strict")
    return response


def setup_routes(settings: Settings) -> list[BaseRoute]:
    # One organization is set up at a time in this process (the link works once).
    creating = asyncio.Lock()

    async def setup(request: Request) -> Response:
        token = request.path_params["token"]
        record = owner_setup.pending(settings, token)
        if record is None:
            return _page(settings, 404, expired=True)
        common = {"organization": record["organization"], "action": f"/setup/{token}"}
        if request.method != "POST":
            return _page(settings, csrf=secrets.token_urlsafe(32), **common)
        form = await request.form()
        values = {k: v for k, v in form.items() if isinstance(v, str)}
        cookie = read_cookie(request, CSRF_COOKIE, settings.base_url) or ""
        sent = values.get("csrf_token", "")
        if not cookie or not sent or not constant_time_equals(cookie, sent):
            error = "The form expired; please try again."
            return _page(settings, 403, csrf=secrets.token_urlsafe(32), error=error, **common)
        fields = {name: values.get(name, "") for name in MAX_FIELD}
        email, full_name = fields["email"].strip(), fields["full_name"].strip()
        too_long = [name for name, limit in MAX_FIELD.items() if len(fields[name]) > limit]
        try:
            if too_long:
                raise InitError(f"{too_long[0].replace('_', ' ')} is too long")
            async with creating:
                # Databases and password hashing: off the event loop.
                _organization, created = await asyncio.to_thread(
                    owner_setup.complete,
                    settings,
                    token,
                    Owner(email, full_name, fields["password"]),
                )
        except InitError as exc:
            return _page(
                settings,
                400,
                csrf=secrets.token_urlsafe(32),
                error=str(exc).capitalize() + ".",
                email=email,
                full_name=full_name,
                **common,
            )
        return _page(
            settings,
            created=True,
            email=email,
            wiki_name=created.wiki_name,
            organization=record["organization"],
        )

    return [
        Route(
            "/setup/{token}",
            bounded(setup, settings.max_body_bytes),
            methods=["GET", "HEAD", "POST"],
        )
    ]
