"""Reading users: the User record of GET /users, /users/{id} and /users/me."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import no_such_user
from atrium.chat.models import ROLE_ADMINISTRATOR, ROLE_GUEST, ROLE_MODERATOR, ROLE_OWNER, User
from atrium.core.db import Conn, Prepared

U = schema.user.c

# A user's `email_address_visibility` (Zulip 7, feature level 163 on: a user setting).
EMAIL_VISIBLE_TO_EVERYONE = 1
EMAIL_VISIBLE_TO_MEMBERS = 2
EMAIL_VISIBLE_TO_ADMINS = 3
EMAIL_VISIBLE_TO_NOBODY = 4
EMAIL_VISIBLE_TO_MODERATORS = 5


@dataclass(frozen=True)
class Viewer:
    """Who reads a User record: what they may see of others' real addresses depends on it."""

    user_id: int
    role: int


def can_see_delivery_email(viewer: Viewer | None, target_id: int, visibility: int) -> bool:
    """Zulip's can_access_delivery_email: the user themself, and whom their setting names.

    No viewer (a record meant for anyone) sees only what everyone may see."""
    if visibility == EMAIL_VISIBLE_TO_EVERYONE:
        return True
    if viewer is None:
        return False
    if viewer.user_id == target_id:
        return True
    if visibility == EMAIL_VISIBLE_TO_ADMINS:
        return viewer.role <= ROLE_ADMINISTRATOR
    if visibility == EMAIL_VISIBLE_TO_MODERATORS:
        return viewer.role <= ROLE_MODERATOR
    if visibility == EMAIL_VISIBLE_TO_MEMBERS:
        return viewer.role != ROLE_GUEST
    return False


def fake_email_domain(base_url: str) -> str:
    """The domain of the API addresses that stand in for hidden ones: the server's host name
    (Zulip's realm host; `localhost` when the URL names none)."""
    return urlsplit(base_url).hostname or "localhost"


def api_email(user_id: int, delivery_email: str, visibility: int, domain: str) -> str:
    """A human's API `email`: the real address when everyone may see it, else `user{id}@domain`."""
    if visibility == EMAIL_VISIBLE_TO_EVERYONE:
        return delivery_email
    return f"user{user_id}@{domain}"


def delivery_email_audiences(
    conn: Conn, realm_id: int, target_id: int, visibility: int
) -> tuple[list[int], list[int]]:
    """The active users who may see the target's real address, and those who may not."""
    allowed: list[int] = []
    denied: list[int] = []
    for r in conn.all(
        sa.select(U.id, U.role).where(U.realm_id == realm_id, U.is_active.is_(True)).order_by(U.id)
    ):
        uid = int(r["id"])
        seen = can_see_delivery_email(Viewer(uid, int(r["role"])), target_id, visibility)
        (allowed if seen else denied).append(uid)
    return allowed, denied


def gravatar_url(email: str, version: int) -> str:
    digest = hashlib.md5(email.lower().encode(), usedforsecurity=False).hexdigest()
    return f"https://secure.gravatar.com/avatar/{digest}?d=identicon&version={version}"


def avatar_url(row: Any, client_gravatar: bool) -> str | None:
    if row["avatar_source"] == "G":
        return None if client_gravatar else gravatar_url(row["email"], row["avatar_version"])
    return f"/user_avatars/{row['realm_id']}/{row['id']}.png?version={row['avatar_version']}"


def iso_timestamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


def user_dict(row: Any, *, client_gravatar: bool, viewer: Viewer | None = None) -> dict[str, Any]:
    """The User record of a full `user` row, as `viewer` may see it."""
    values = tuple(row[column.name] for column in _LISTED)
    return user_records([values], client_gravatar=client_gravatar, viewer=viewer)[0]


def user_records(
    rows: list[tuple[Any, ...]],
    *,
    client_gravatar: bool,
    profiles: dict[int, dict[str, dict[str, str]]] | None = None,
    viewer: Viewer | None = None,
) -> list[dict[str, Any]]:
    """Zulip's User records, from tuples of the `_LISTED` columns in their order; with
    `profiles`, each human also carries its `profile_data`. `delivery_email` is null where the
    viewer may not see it (bots' addresses are public). One loop over plain tuples, since
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
        visibility,
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
            "delivery_email": (
                delivery_email
                if is_bot or can_see_delivery_email(viewer, user_id, visibility)
                else None
            ),
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
    U.email_address_visibility,
)
_REALM_USERS = Prepared(
    sa.select(*_LISTED).where(U.realm_id == sa.bindparam("realm_id")).order_by(U.id)
)


def all_users(
    conn: Conn,
    realm_id: int,
    *,
    client_gravatar: bool,
    include_custom_profile_fields: bool,
    viewer: Viewer | None = None,
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
        viewer=viewer,
    )


def user_row(conn: Conn, realm_id: int, user_id: int) -> Any:
    return conn.one(sa.select(schema.user).where(U.id == user_id, U.realm_id == realm_id))


def user_row_by_email(conn: Conn, realm_id: int, email: str) -> Any:
    return conn.one(
        sa.select(schema.user).where(
            U.realm_id == realm_id, sa.func.lower(U.email) == email.strip().lower()
        )
    )


def user_row_by_delivery_email(conn: Conn, realm_id: int, email: str) -> Any:
    """A user by their real address: what people sign in and are invited with, whatever API
    address their email_address_visibility gives them."""
    return conn.one(
        sa.select(schema.user).where(
            U.realm_id == realm_id, sa.func.lower(U.delivery_email) == email.strip().lower()
        )
    )


def one_user(
    conn: Conn,
    row: Any,
    *,
    client_gravatar: bool,
    include_custom_profile_fields: bool,
    viewer: Viewer | None = None,
) -> dict[str, Any]:
    record = user_dict(row, client_gravatar=client_gravatar, viewer=viewer)
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


def principal_ids(conn: Conn, realm_id: int, principals: Sequence[int | str]) -> list[int]:
    """The user ids that `principals` (ids, or emails in any case) name in the realm; an email
    nobody in the realm has is `No such user`. Ids are checked by the caller, with the rest of
    what it reads of those users."""
    ids = []
    for principal in principals:
        if isinstance(principal, int):
            ids.append(principal)
            continue
        found = user_id_by_email(conn, realm_id, principal)
        if found is None:
            raise no_such_user()
        ids.append(found)
    return ids


def principal_user(conn: Conn, actor: User, principal: int | str) -> User:
    """An active user of the actor's organization, by id or email, or `No such user`."""
    if isinstance(principal, int):
        where = U.id == principal
    else:
        where = sa.func.lower(U.email) == principal.strip().lower()
    row = conn.one(sa.select(schema.user).where(where, U.realm_id == actor.realm_id))
    if row is None or not row["is_active"]:
        raise no_such_user()
    return User.from_row(row)


def people_rows(conn: Conn, realm_id: int) -> list[Any]:
    """Every human user of the organization, active or not, in the order they joined."""
    return conn.all(
        sa.select(schema.user).where(U.realm_id == realm_id, U.is_bot.is_(False)).order_by(U.id)
    )
