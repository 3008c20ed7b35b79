"""The session cookie and the checks every page's state-changing request passes.

The cookie holds only the opaque token (HttpOnly, SameSite=Lax, Secure when the public URL is
https). A state-changing request must carry the session's CSRF token (a header from scripts, a
form field from forms) and, when the browser sends an Origin, come from our own origin.
"""

from __future__ import annotations

import hmac
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


def session_token(request: Request) -> str | None:
    return request.cookies.get(SESSION_COOKIE) or None


def is_secure(base_url: str) -> bool:
    return base_url.lower().startswith("https://")


def set_cookie(response: Response, name: str, value: str, base_url: str, max_age: int) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path="/",
        httponly=True,
        samesite="lax",
        secure=is_secure(base_url),
    )


def set_session_cookie(response: Response, token: str, base_url: str) -> None:
    set_cookie(response, SESSION_COOKIE, token, base_url, SESSION_LIFETIME_SECONDS)


def clear_cookie(response: Response, name: str, base_url: str) -> None:
    response.delete_cookie(
        name, path="/", httponly=True, samesite="lax", secure=is_secure(base_url)
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
