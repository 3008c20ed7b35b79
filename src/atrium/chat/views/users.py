"""GET/POST /users, GET/PATCH/DELETE /users/{id}, reactivation, GET /users/me, PATCH /settings."""

from __future__ import annotations

from typing import Annotated, Any

from atrium.chat.actions.email_change import change_settings_and_email
from atrium.chat.actions.profile_fields import update_user_and_profile
from atrium.chat.actions.user_admin import (
    MAX_DEACTIVATION_COMMENT_LENGTH,
    ROLES,
    deactivate_user,
    reactivate_user,
)
from atrium.chat.actions.users import NewUser
from atrium.chat.actions.welcome_bot import add_welcomed_user
from atrium.chat.auth import end_browser_sessions
from atrium.chat.errors import ChatError, no_such_user
from atrium.chat.guards import realm_admin
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import Endpoint, Param
from atrium.chat.queries import users as user_queries
from atrium.chat.queries.user_settings import SETTING_TYPES
from atrium.chat.typed_endpoint import ApiParamConfig, Json, UserPath, typed_endpoint
from atrium.core import workers
from atrium.core.db import Conn
from atrium.core.secrets import hash_password


@typed_endpoint
async def get_users(
    req: ApiRequest,
    *,
    client_gravatar: Json[bool] = True,
    include_custom_profile_fields: Json[bool] = False,
) -> dict[str, Any]:
    members = await req.runtime.db.read(
        lambda conn: user_queries.all_users(
            conn,
            req.me.realm_id,
            client_gravatar=client_gravatar,
            include_custom_profile_fields=include_custom_profile_fields,
            viewer=user_queries.Viewer(req.me.id, req.me.role),
        )
    )
    return {"members": members}


@typed_endpoint
async def get_user(
    req: ApiRequest,
    *,
    user: UserPath,
    client_gravatar: Json[bool] = True,
    include_custom_profile_fields: Json[bool] = False,
) -> dict[str, Any]:
    key: int | str = user

    def read(conn: Conn) -> dict[str, Any]:
        if isinstance(key, int):
            row = user_queries.user_row(conn, req.me.realm_id, key)
        else:
            row = user_queries.user_row_by_email(conn, req.me.realm_id, key)
        if row is None:
            raise no_such_user()
        return user_queries.one_user(
            conn,
            row,
            client_gravatar=client_gravatar,
            include_custom_profile_fields=include_custom_profile_fields,
            viewer=user_queries.Viewer(req.me.id, req.me.role),
        )

    return {"user": await req.runtime.db.read(read)}


@typed_endpoint
async def get_me(req: ApiRequest) -> dict[str, Any]:
    def read(conn: Conn) -> dict[str, Any]:
        row = user_queries.user_row(conn, req.me.realm_id, req.me.id)
        record = user_queries.one_user(
            conn,
            row,
            client_gravatar=False,
            include_custom_profile_fields=True,
            viewer=user_queries.Viewer(req.me.id, req.me.role),
        )
        record["max_message_id"] = user_queries.max_message_id(conn, req.me.id)
        if record.get("bot_type") is None:
            # GET /users/me names a bot type only for bots, as Zulip's does.
            record.pop("bot_type", None)
        return record

    return await req.runtime.db.read(read)


@typed_endpoint(guard=realm_admin)
async def create(req: ApiRequest, *, email: str, password: str, full_name: str) -> dict[str, Any]:
    if not password:
        raise ChatError("Password must not be empty")
    new = NewUser(
        email=email,
        full_name=full_name,
        password=password,
        password_hash=await workers.run(hash_password, password),
        email_domain=user_queries.fake_email_domain(req.runtime.settings.base_url),
    )
    if req.runtime.accounts is not None:
        # The person's identity first; their chat user, then their wiki user, follow.
        await req.runtime.accounts.reserve(email, new.password_hash)
    user_id = await req.runtime.write(add_welcomed_user, req.me.realm_id, new)
    return {"user_id": user_id}


def _user_id(key: int | str) -> int:
    """The path's user, which must be an id here (GET also accepts an email)."""
    if not isinstance(key, int):
        raise no_such_user()
    return key


def _comment(name: str, raw: str) -> str:
    """Zulip checks the comment's length before it looks at the user or the permission."""
    if len(raw) > MAX_DEACTIVATION_COMMENT_LENGTH:
        raise ChatError(f"{name} is too long (limit: {MAX_DEACTIVATION_COMMENT_LENGTH} characters)")
    return raw


@typed_endpoint
async def deactivate(
    req: ApiRequest,
    *,
    user: UserPath,
    deactivation_notification_comment: Annotated[
        str | None, ApiParamConfig(converter=_comment)
    ] = None,
) -> dict[str, Any]:
    user_id = _user_id(user)
    await req.runtime.write(deactivate_user, req.me, user_id, deactivation_notification_comment)
    await end_browser_sessions(req.runtime, user_id)
    return {}


@typed_endpoint
async def reactivate(req: ApiRequest, *, user: UserPath) -> dict[str, Any]:
    await req.runtime.write(reactivate_user, req.me, _user_id(user))
    return {}


def _role(name: str, raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise ChatError(f"{name} is not an integer") from None
    if value not in ROLES:
        raise ChatError(f"Invalid {name}")
    return value


@typed_endpoint
async def update(
    req: ApiRequest,
    *,
    user: UserPath,
    full_name: str | None = None,
    role: Annotated[int | None, ApiParamConfig(converter=_role)] = None,
    profile_data: Json[list[dict[str, Any]] | None] = None,
) -> dict[str, Any]:
    await req.runtime.write(
        update_user_and_profile,
        req.me,
        _user_id(user),
        full_name,
        role,
        profile_data,
    )
    return {}


@api(
    Endpoint(
        (
            Param("full_name"),
            Param("email"),
            *(Param(name, kind) for name, kind in SETTING_TYPES.items()),
        )
    )
)
async def update_settings(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    domain = user_queries.fake_email_domain(req.runtime.settings.base_url)
    new_email = args.pop("email", None)
    rt = req.runtime
    await rt.write(
        change_settings_and_email, req.me, args, domain, new_email, rt.composer, rt.secret
    )
    if new_email is None:
        return {}
    # Zulip: the address changes once the link mailed to it is followed.
    return {"account_email": "Check your email for a confirmation link. "}
