"""Reading users: the User record of GET /users, /users/{id} and /users/me."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import ROLE_ADMINISTRATOR, ROLE_GUEST, ROLE_OWNER
from atrium.core.db import Conn, Prepared

U = schema.user.c


def gravatar_url(email: str, version: int) -> str:
    digest = hashlib.md5(email.lower().encode(), usedforsecurity=False).hexdigest()
    return f"https://secure.gravatar.com/avatar/{digest}?d=identicon&version={version}"


def avatar_url(row: Any, client_gravatar: bool) -> str | None:
    if row["avatar_source"] == "G":
        return None if client_gravatar else gravatar_url(row["email"], row["avatar_version"])
    return f"/user_avatars/{row['realm_id']}/{row['id']}.png?version={row['avatar_version']}"


def iso_timestamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


def user_dict(row: Any, *, client_gravatar: bool) -> dict[str, Any]:
    """The User record of a full `user` row."""
    values = tuple(row[column.name] for column in _LISTED)
    return user_records([values], client_gravatar=client_gravatar)[0]


def user_records(
    rows: list[tuple[Any, ...]],
    *,
    client_gravatar: bool,
    profiles: dict[int, dict[str, dict[str, str]]] | None = None,
) -> list[dict[str, Any]]:
    """Zulip's User records, from tuples of the `_LISTED` columns in their order; with
    `profiles`, each human also carries its `profile_data`. One loop over plain tuples, since
    GET /users builds thousands at a time."""
    fromtimestamp = datetime.fromtimestamp
    records: list[dict[str, Any]] = []
    append = records.append
    for (
        user_id,
        email,
        delivery_email,
        full_name,
        role,
        is_active,
        is_billing_admin,
        is_bot,
        bot_type,
        bot_owner_id,
        timezone,
        avatar_source,
        avatar_version,
        date_joined,
        realm_id,
    ) in rows:
        if avatar_source != "G":
            avatar = f"/user_avatars/{realm_id}/{user_id}.png?version={avatar_version}"
        elif client_gravatar:
            avatar = None
        else:
            avatar = gravatar_url(email, avatar_version)
        record: dict[str, Any] = {
            "email": email,
            "user_id": user_id,
            "avatar_version": avatar_version,
            "is_admin": role <= ROLE_ADMINISTRATOR,
            "is_owner": role == ROLE_OWNER,
            "is_guest": role == ROLE_GUEST,
            "is_billing_admin": bool(is_billing_admin),
            "role": role,
            "is_bot": bool(is_bot),
            "full_name": full_name,
            "timezone": timezone,
            "is_active": bool(is_active),
            "date_joined": fromtimestamp(date_joined, UTC).isoformat(),
            "delivery_email": delivery_email,
            "avatar_url": avatar,
        }
        # `bot_type` is null for humans (the User schema: "Null for non-bots"); only bots have
        # an owner field.
        record["bot_type"] = bot_type if is_bot else None
        if is_bot:
            record["bot_owner_id"] = bot_owner_id
        elif profiles is not None:
            record["profile_data"] = profiles.get(user_id, {})
        append(record)
    return records


def profile_data(conn: Conn, user_ids: list[int]) -> dict[int, dict[str, dict[str, str]]]:
    """Custom profile field values by user, keyed by field id as a string (as Zulip does)."""
    out: dict[int, dict[str, dict[str, str]]] = defaultdict(dict)
    if not user_ids:
        return out
    V = schema.custom_profile_field_value.c
    for row in conn.all(
        sa.select(schema.custom_profile_field_value).where(V.user_id.in_(user_ids))
    ):
        value = {"value": row["value"]}
        if row["rendered_value"] is not None:
            value["rendered_value"] = row["rendered_value"]
        out[row["user_id"]][str(row["field_id"])] = value
    return out


_LISTED = (
    U.id,
    U.email,
    U.delivery_email,
    U.full_name,
    U.role,
    U.is_active,
    U.is_billing_admin,
    U.is_bot,
    U.bot_type,
    U.bot_owner_id,
    U.timezone,
    U.avatar_source,
    U.avatar_version,
    U.date_joined,
    U.realm_id,
)
_REALM_USERS = Prepared(
    sa.select(*_LISTED).where(U.realm_id == sa.bindparam("realm_id")).order_by(U.id)
)


def all_users(
    conn: Conn, realm_id: int, *, client_gravatar: bool, include_custom_profile_fields: bool
) -> list[dict[str, Any]]:
    """GET /users: the User record of every user, from row tuples read in one statement."""
    rows = conn.tuples(_REALM_USERS, {"realm_id": realm_id})
    profiles = (
        profile_data(conn, [r[0] for r in rows if not r[7]])
        if include_custom_profile_fields
        else {}
    )
    return user_records(
        rows,
        client_gravatar=client_gravatar,
        profiles=profiles if include_custom_profile_fields else None,
    )


def user_row(conn: Conn, realm_id: int, user_id: int) -> Any:
    return conn.one(sa.select(schema.user).where(U.id == user_id, U.realm_id == realm_id))


def user_row_by_email(conn: Conn, realm_id: int, email: str) -> Any:
    return conn.one(
        sa.select(schema.user).where(
            U.realm_id == realm_id, sa.func.lower(U.email) == email.strip().lower()
        )
    )


def one_user(
    conn: Conn, row: Any, *, client_gravatar: bool, include_custom_profile_fields: bool
) -> dict[str, Any]:
    record = user_dict(row, client_gravatar=client_gravatar)
    if include_custom_profile_fields and not row["is_bot"]:
        record["profile_data"] = profile_data(conn, [row["id"]]).get(row["id"], {})
    return record


def max_message_id(conn: Conn, user_id: int) -> int:
    value = conn.scalar(
        sa.select(sa.func.max(schema.user_message.c.message_id)).where(
            schema.user_message.c.user_id == user_id
        )
    )
    return int(value or -1)


def active_user_ids(conn: Conn, realm_id: int) -> list[int]:
    """Everyone in the organization who can hear events (realm-wide settings, users, groups)."""
    return conn.scalars(
        sa.select(U.id).where(U.realm_id == realm_id, U.is_active.is_(True)).order_by(U.id)
    )


def active_non_guest_user_ids(conn: Conn, realm_id: int) -> list[int]:
    return conn.scalars(
        sa.select(U.id)
        .where(U.realm_id == realm_id, U.is_active.is_(True), U.role != ROLE_GUEST)
        .order_by(U.id)
    )


def admin_user_ids(conn: Conn, realm_id: int) -> list[int]:
    return conn.scalars(
        sa.select(U.id)
        .where(U.realm_id == realm_id, U.is_active.is_(True), U.role <= ROLE_ADMINISTRATOR)
        .order_by(U.id)
    )


def user_id_by_email(conn: Conn, realm_id: int, email: str) -> int | None:
    user_id = conn.scalar(
        sa.select(schema.user.c.id).where(
            schema.user.c.realm_id == realm_id,
            sa.func.lower(schema.user.c.email) == email.strip().lower(),
        )
    )
    return None if user_id is None else int(user_id)
