"""Who is acting: HTTP Basic credentials (email + API key) under /api/v1, or the browser session
(cookie + CSRF token) under /json, as Zulip's web app; otherwise Zulip's 401."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import sqlalchemy as sa
from starlette.requests import Request

from atrium.chat import schema
from atrium.chat.errors import ChatError, unauthorized
from atrium.chat.models import User
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn, Prepared
from atrium.core.secrets import API_KEY_LENGTH, constant_time_equals
from atrium.core.session_cookies import (
    CSRF_HEADER,
    SAFE_METHODS,
    same_origin,
    session_token,
    tokens_match,
)
from atrium.core.sessions import BrowserSession

SERVICE = "chat"
NOT_LOGGED_IN = "Not logged in: API authentication or user session required"

_USER_BY_API_KEY = Prepared(
    sa.select(schema.user, schema.realm.c.deactivated.label("realm_deactivated"))
    .join(schema.realm, schema.realm.c.id == schema.user.c.realm_id)
    .where(schema.user.c.api_key == sa.bindparam("api_key"))
)


_USER_BY_ID = Prepared(
    sa.select(schema.user, schema.realm.c.deactivated.label("realm_deactivated"))
    .join(schema.realm, schema.realm.c.id == schema.user.c.realm_id)
    .where(schema.user.c.id == sa.bindparam("user_id"))
)


def _user_by_api_key(conn: Conn, api_key: str) -> Any:
    return conn.one(_USER_BY_API_KEY, {"api_key": api_key})


def user_row_by_id(conn: Conn, user_id: int) -> Any:
    return conn.one(_USER_BY_ID, {"user_id": user_id})


def parse_basic(header: str) -> tuple[str, str]:
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic":
        raise ChatError("This endpoint requires HTTP basic authentication.")
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise unauthorized("Invalid authorization header for basic auth") from None
    email, sep, api_key = decoded.partition(":")
    if not sep:
        raise unauthorized("Invalid authorization header for basic auth")
    return email, api_key


async def authenticate(runtime: ChatRuntime, header: str | None) -> User:
    if not header:
        raise unauthorized("Not logged in: API authentication or user session required")
    email, api_key = parse_basic(header)
    if len(api_key) != API_KEY_LENGTH:
        raise unauthorized("Malformed API key")
    row = runtime.credentials.get(api_key)
    if row is None:
        row = await runtime.db.read(_user_by_api_key, api_key)
        if row is not None:
            runtime.credentials.put(api_key, row)
    # The key is looked up by index; the comparison that decides is constant-time.
    if row is None or not constant_time_equals(row["api_key"], api_key):
        raise unauthorized("Invalid API key")
    if email.lower() not in {row["email"].lower(), row["delivery_email"].lower()}:
        raise unauthorized("Invalid API key")
    if row["realm_deactivated"]:
        raise unauthorized("This organization has been deactivated")
    if not row["is_active"]:
        raise unauthorized("Account is deactivated")
    return User.from_row(row)


def csrf_failed(reason: str) -> ChatError:
    return ChatError(f"CSRF error: {reason}", "CSRF_FAILED", 403)


async def browser_session(runtime: ChatRuntime, request: Request) -> BrowserSession | None:
    """The request's live session signed in to the chat, if any (no CSRF check)."""
    if runtime.sessions is None:
        return None
    session = await runtime.sessions.get(session_token(request))
    if session is None or session.user_id(SERVICE) is None:
        return None
    return session


async def end_browser_sessions(runtime: ChatRuntime, user_id: int) -> None:
    """Sign `user_id` out of every browser, as Zulip deletes a deactivated user's sessions: a
    session (perhaps a stolen one) must not come back to life on reactivation."""
    if runtime.sessions is not None:
        await runtime.sessions.end_all_for(SERVICE, user_id)


async def session_user(runtime: ChatRuntime, session: BrowserSession) -> User | None:
    """The active user a chat session is signed in as (None once deactivated)."""
    user_id = session.user_id(SERVICE)
    if user_id is None:
        return None
    row = await runtime.db.read(user_row_by_id, user_id)
    if row is None or not row["is_active"] or row["realm_deactivated"] or row["is_bot"]:
        return None
    return User.from_row(row)


async def authenticate_session(runtime: ChatRuntime, request: Request) -> User:
    """The /json routes: a browser session, and its CSRF token on every state change.

    No `WWW-Authenticate` on the 401, so that a browser never pops up its password dialog.
    """
    session = await browser_session(runtime, request)
    user = await session_user(runtime, session) if session is not None else None
    if session is None or user is None:
        raise ChatError(NOT_LOGGED_IN, "UNAUTHORIZED", 401)
    if request.method not in SAFE_METHODS:
        given = request.headers.get(CSRF_HEADER)
        if not given:
            raise csrf_failed("CSRF token missing.")
        if not tokens_match(session.csrf_token, given):
            raise csrf_failed("CSRF token incorrect.")
        if not same_origin(request, runtime.settings.base_url):
            raise csrf_failed("Origin checking failed.")
    return user
