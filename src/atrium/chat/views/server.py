"""The two unauthenticated endpoints: GET /server_settings and POST /fetch_api_key."""

from __future__ import annotations

import math
from typing import Any

from atrium.chat.auth import user_row_by_id
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest
from atrium.chat.queries.images import realm_images
from atrium.chat.queries.realm import default_realm
from atrium.chat.queries.users import user_row_by_delivery_email
from atrium.chat.rendering import render_description
from atrium.chat.runtime import ChatRuntime
from atrium.chat.typed_endpoint import typed_endpoint
from atrium.chat.version import ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION
from atrium.core import workers
from atrium.core.db import Conn
from atrium.core.password_throttle import PasswordThrottle, Rule, Scope
from atrium.core.secrets import verify_dummy_password, verify_password

AUTHENTICATION_METHODS = {
    "password": True,
    "dev": False,
    "email": True,
    "ldap": False,
    "remoteuser": False,
    "github": False,
    "azuread": False,
    "gitlab": False,
    "google": False,
    "apple": False,
    "saml": False,
    "openid connect": False,
}


@typed_endpoint(auth=False)
async def server_settings(req: ApiRequest) -> dict[str, Any]:
    def read(conn: Conn) -> dict[str, Any]:
        realm = default_realm(conn)
        settings = req.runtime.settings
        data: dict[str, Any] = {
            "authentication_methods": AUTHENTICATION_METHODS,
            "external_authentication_methods": [],
            "zulip_feature_level": ZULIP_FEATURE_LEVEL,
            "zulip_version": ZULIP_VERSION,
            "zulip_merge_base": ZULIP_MERGE_BASE,
            "push_notifications_enabled": False,
            "is_incompatible": False,
            "email_auth_enabled": True,
            "require_email_format_usernames": True,
            "realm_uri": settings.base_url,
        }
        if realm is not None:
            data.update(
                {
                    "realm_name": realm.name,
                    "realm_icon": settings.base_url + realm_images(conn, realm.id)["icon"][0],
                    "realm_description": render_description(
                        conn, realm.id, realm.setting("description")
                    ),
                    "realm_web_public_access_enabled": bool(
                        realm.setting("enable_spectator_access")
                    ),
                }
            )
        return data

    return await req.runtime.db.read(read)


@typed_endpoint(auth=False)
async def fetch_api_key(req: ApiRequest, *, username: str, password: str) -> dict[str, Any]:
    address = req.http.client.host if req.http.client else ""
    row = await password_login(req.runtime, username, password, address)
    return {"api_key": row["api_key"], "email": row["email"], "user_id": row["id"]}


def password_throttle(runtime: ChatRuntime) -> PasswordThrottle:
    """Zulip's limit of failed passwords per username, and a wider one per address so that one
    client cannot try a password against every account."""
    limits = runtime.settings.rate_limits
    rules = (
        Rule(limits.password_attempts, limits.password_window_seconds, Scope.ACCOUNT),
        Rule(limits.password_attempts_per_address, limits.password_window_seconds, Scope.ADDRESS),
    )
    return PasswordThrottle(runtime.limiter, "chat", rules, limits.enabled)


async def password_login(runtime: ChatRuntime, username: str, password: str, address: str) -> Any:
    """The user row that `username` and `password` sign in as, or Zulip's error.

    Shared by `fetch_api_key` and the browser's login form, so that both count against the same
    limits of failed password attempts. The hash is verified in the worker pool, and an unknown
    user costs the same verification as a known one.
    """
    throttle = password_throttle(runtime)
    account = username.strip().lower()
    refused = await throttle.refusal(account, address)
    if refused is not None:
        retry = refused.retry_after
        raise ChatError(
            "API usage exceeded rate limit",
            "RATE_LIMIT_HIT",
            429,
            headers={"Retry-After": str(max(1, math.ceil(retry)))},
            **{"retry-after": retry},
        )

    # A person with one account across services signs in with its password, by email or by
    # their wiki user name; a user no identity owns keeps the chat's own password.
    linked = await runtime.accounts.for_login("chat", username) if runtime.accounts else None

    def read(conn: Conn) -> Any:
        realm = default_realm(conn)
        if realm is None:
            return None, None
        if linked is not None:
            if linked.user_id is None:
                return realm, None
            return realm, user_row_by_id(conn, linked.user_id)
        return realm, user_row_by_delivery_email(conn, realm.id, username)

    realm, row = await runtime.db.read(read)
    stored = linked.password_hash if linked is not None else (row or {}).get("password_hash")
    if row is None or realm is None or not stored:
        ok = await workers.run(verify_dummy_password, password)
    else:
        ok = await workers.run(verify_password, stored, password)
    # An unknown user gets the same answer as a wrong password.
    if not ok:
        await throttle.failed(account, address)
        raise ChatError("Your username or password is incorrect", "AUTHENTICATION_FAILED", 401)
    if realm.setting("deactivated"):
        raise ChatError("This organization has been deactivated", "REALM_DEACTIVATED", 401)
    if not row["is_active"] or (linked is not None and not linked.active):
        raise ChatError("Account is deactivated", "USER_DEACTIVATED", 401)
    return row
