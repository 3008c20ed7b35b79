"""The session cookie and the checks every page's state-changing request passes.

The cookie holds only the opaque token (HttpOnly, SameSite=Lax, Secure when the public URL is
https). Under https every cookie's name takes the `__Host-` prefix (with `Path=/` and no
`Domain`), so that neither a sibling subdomain nor plain http can plant one. A state-changing request must carry the session's CSRF token (a header from scripts, a
form field from forms) and, when the browser sends an Origin, come from our own origin.
"""

from __future__ import annotations

import hmac
from typing import Literal
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from atrium.core.sessions import SESSION_LIFETIME_SECONDS

SESSION_COOKIE = "atrium_session"
# Before sign-in there is no session to hold a CSRF token: the login form's token is
# double-submitted (this cookie and a hidden field must agree).
LOGIN_CSRF_COOKIE = "atrium_login_csrf"
CSRF_HEADER = "x-csrftoken"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


HOST_PREFIX = "__Host-"


def is_secure(base_url: str) -> bool:
    return base_url.lower().startswith("https://")


def cookie_name(name: str, base_url: str) -> str:
    """The name a cookie has on the wire: `__Host-` prefixed when the public URL is https."""
    return HOST_PREFIX + name if is_secure(base_url) else name


def request_base_url(request: Request) -> str:
    """The public URL of the app serving `request` (its settings'), or "" outside an app."""
    app = request.scope.get("app")
    settings = getattr(getattr(app, "state", None), "settings", None)
    return str(getattr(settings, "base_url", ""))


def read_cookie(request: Request, name: str, base_url: str | None = None) -> str | None:
    """A cookie by its plain name; under https only its prefixed form counts."""
    wire = cookie_name(name, request_base_url(request) if base_url is None else base_url)
    return request.cookies.get(wire) or None


def session_token(request: Request) -> str | None:
    return read_cookie(request, SESSION_COOKIE)


def set_cookie(
    response: Response,
    name: str,
    value: str,
    base_url: str,
    max_age: int | None,
    samesite: Literal["lax", "strict"] = "lax",
) -> None:
    response.set_cookie(
        cookie_name(name, base_url),
        value,
        max_age=max_age,
        path="/",
        httponly=True,
        samesite=samesite,
        secure=is_secure(base_url),
    )


def set_session_cookie(response: Response, token: str, base_url: str) -> None:
    set_cookie(response, SESSION_COOKIE, token, base_url, SESSION_LIFETIME_SECONDS)


def clear_cookie(response: Response, name: str, base_url: str) -> None:
    response.delete_cookie(
        cookie_name(name, base_url),
        path="/",
        httponly=True,
        samesite="lax",
        secure=is_secure(base_url),
    )


def tokens_match(expected: str | None, given: str | None) -> bool:
    if not expected or not given:
        return False
    return hmac.compare_digest(expected.encode(), given.encode())


def same_origin(request: Request, base_url: str) -> bool:
    """False only when the browser names another origin than ours (or the host it asked)."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    if origin == "null":
        return False
    ours = urlsplit(base_url)
    allowed = {f"{ours.scheme}://{ours.netloc}".lower()}
    host = request.headers.get("host")
    if host:
        allowed.add(f"{request.url.scheme}://{host}".lower())
    return origin.lower().rstrip("/") in allowed
