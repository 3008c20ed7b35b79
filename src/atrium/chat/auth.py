"""HTTP Basic credentials (email + API key) -> the acting user, or Zulip's 401."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError, unauthorized
from atrium.chat.models import User
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn, Prepared
from atrium.core.secrets import API_KEY_LENGTH, constant_time_equals

_USER_BY_API_KEY = Prepared(
    sa.select(schema.user, schema.realm.c.deactivated.label("realm_deactivated"))
    .join(schema.realm, schema.realm.c.id == schema.user.c.realm_id)
    .where(schema.user.c.api_key == sa.bindparam("api_key"))
)


def _user_by_api_key(conn: Conn, api_key: str) -> Any:
    return conn.one(_USER_BY_API_KEY, {"api_key": api_key})


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
