"""Reading streams and subscriptions, and who may see what.

The access rules live here and only here: a private stream's existence, name and messages are
visible to its subscribers (and its metadata to administrators); guests see only streams they are
subscribed to, plus web-public ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import aggregate_order_by

from atrium.chat import schema
from atrium.chat.errors import ChatError, must_be_admin
from atrium.chat.models import ROLE_ADMINISTRATOR, ROLE_GUEST, User
from atrium.core.db import Conn, InIdList, Prepared

S = schema.stream.c
SUB = schema.subscription.c

_STREAM_BY_ID = Prepared(
    sa.select(schema.stream).where(S.id == sa.bindparam("stream_id"), S.deactivated.is_(False))
)
_STREAM_BY_NAME = Prepared(
    sa.select(schema.stream).where(
        S.realm_id == sa.bindparam("realm_id"),
        sa.func.lower(S.name) == sa.func.lower(sa.bindparam("name")),
        S.deactivated.is_(False),
    )
)
_ACTIVE_SUBSCRIPTION = Prepared(
    sa.select(schema.subscription).where(
        SUB.user_id == sa.bindparam("user_id"),
        SUB.stream_id == sa.bindparam("stream_id"),
        SUB.active.is_(True),
    )
)
_SUBSCRIBER_IDS = Prepared(
    sa.select(SUB.user_id)
    .join(schema.user, schema.user.c.id == SUB.user_id)
    .where(
        SUB.stream_id == sa.bindparam("stream_id"),
        SUB.active.is_(True),
        schema.user.c.is_active.is_(True),
    )
)


def stream_by_id(conn: Conn, realm_id: int, stream_id: int) -> Any:
    row = conn.one(_STREAM_BY_ID, {"stream_id": stream_id})
    if row is None or row["realm_id"] != realm_id:
        return None
    return row


_DEACTIVATED_IDS = Prepared(
    sa.select(S.id).where(S.realm_id == sa.bindparam("realm_id"), S.deactivated.is_(True))
)


def deactivated_stream_ids(conn: Conn, realm_id: int) -> list[int]:
    """The realm's archived streams, whose messages nobody may read, change or flag."""
    return [int(i) for i in conn.scalars(_DEACTIVATED_IDS, {"realm_id": realm_id})]


def stream_by_name(conn: Conn, realm_id: int, name: str) -> Any:
    return conn.one(_STREAM_BY_NAME, {"realm_id": realm_id, "name": name})


def active_subscription(conn: Conn, user_id: int, stream_id: int) -> Any:
    return conn.one(_ACTIVE_SUBSCRIPTION, {"user_id": user_id, "stream_id": stream_id})


def subscriber_ids(conn: Conn, stream_id: int) -> list[int]:
    return conn.scalars(_SUBSCRIBER_IDS, {"stream_id": stream_id})


def can_see_stream(user: User, stream: Any, subscribed: bool) -> bool:
    """May the user know the stream exists (metadata)?"""
    if subscribed:
        return True
    if user.is_guest:
        return bool(stream["is_web_public"])
    return not stream["invite_only"] or user.is_admin


def can_read_stream(user: User, stream: Any, subscribed: bool) -> bool:
    """May the user read the stream's messages (subject to history_public_to_subscribers)?"""
    if subscribed:
        return True
    if stream["invite_only"]:
        return False
    return not user.is_guest or bool(stream["is_web_public"])


def stream_audience_ids(conn: Conn, stream: Any) -> list[int]:
    """Active users who may see the stream (`can_see_stream`): who hears of its changes.

    The same users may see its subscribers, so peer events go to them too.
    """
    U = schema.user.c
    subscribed = sa.select(SUB.user_id).where(SUB.stream_id == stream["id"], SUB.active.is_(True))
    sees: sa.ColumnElement[bool]
    if stream["is_web_public"]:
        sees = sa.true()
    elif stream["invite_only"]:
        sees = sa.or_(U.id.in_(subscribed), U.role <= ROLE_ADMINISTRATOR)
    else:
        sees = sa.or_(U.id.in_(subscribed), U.role != ROLE_GUEST)
    return conn.scalars(
        sa.select(U.id)
        .where(U.realm_id == stream["realm_id"], U.is_active.is_(True), sees)
        .order_by(U.id)
    )


def stream_for_update(conn: Conn, user: User, stream_id: int) -> tuple[Any, Any]:
    """Zulip's access for changing or archiving a stream: (stream, the user's subscription).

    Administrators reach every stream; anyone else is told a private stream they are not
    subscribed to does not exist, and that the rest needs an administrator.
    """
    stream = stream_by_id(conn, user.realm_id, stream_id)
    if stream is None:
        raise ChatError("Invalid stream ID")
    sub = active_subscription(conn, user.id, stream_id)
    if user.is_admin:
        return stream, sub
    if sub is None and stream["invite_only"]:
        raise ChatError("Invalid stream ID")
    raise must_be_admin()


def stream_for_reading(
    conn: Conn, user: User, stream_id: int, *, allow_realm_admin: bool
) -> tuple[Any, Any]:
    """Zulip's `access_stream_by_id`: (stream, subscription), or `Invalid stream ID`."""
    stream = stream_by_id(conn, user.realm_id, stream_id)
    if stream is None:
        raise ChatError("Invalid stream ID")
    sub = active_subscription(conn, user.id, stream_id)
    if can_read_stream(user, stream, sub is not None):
        return stream, sub
    if allow_realm_admin and user.is_admin and not user.is_guest:
        return stream, sub
    raise ChatError("Invalid stream ID")


def readable_stream_ids(conn: Conn, user: User) -> tuple[set[int], set[int]]:
    """(streams the user is subscribed to, other streams whose history the user may read)."""
    subscribed = set(
        conn.scalars(sa.select(SUB.stream_id).where(SUB.user_id == user.id, SUB.active.is_(True)))
    )
    if user.is_guest:
        public = conn.scalars(
            sa.select(S.id).where(
                S.realm_id == user.realm_id, S.is_web_public.is_(True), S.deactivated.is_(False)
            )
        )
    else:
        public = conn.scalars(
            sa.select(S.id).where(
                S.realm_id == user.realm_id, S.invite_only.is_(False), S.deactivated.is_(False)
            )
        )
    return subscribed, set(public) - subscribed


def can_remove_subscribers_field(group_id: int) -> dict[str, int]:
    # Feature level 185 names it `can_remove_subscribers_group_id` (renamed at 197).
    return {"can_remove_subscribers_group_id": group_id}


def stream_dict(stream: Any) -> dict[str, Any]:
    """A stream as GET /streams and the `streams` state show it."""
    return {
        "stream_id": stream["id"],
        "name": stream["name"],
        "description": stream["description"],
        "rendered_description": stream["rendered_description"],
        "date_created": int(stream["date_created"]),
        "invite_only": bool(stream["invite_only"]),
        "is_web_public": bool(stream["is_web_public"]),
        "history_public_to_subscribers": bool(stream["history_public_to_subscribers"]),
        "stream_post_policy": stream["stream_post_policy"],
        "is_announcement_only": stream["stream_post_policy"] == 2,
        "message_retention_days": stream["message_retention_days"],
        "first_message_id": stream["first_message_id"],
        "stream_weekly_traffic": None,
        **can_remove_subscribers_field(stream["can_remove_subscribers_group_id"]),
    }


def _optional_bool(value: Any) -> bool | None:
    """A notification override: None inherits the user's default (SQLite stores 0/1)."""
    return None if value is None else bool(value)


def subscription_dict(
    stream: Any, sub: Any, subscribers: list[int] | None = None
) -> dict[str, Any]:
    """A Stream (subscription record) as GET /users/me/subscriptions shows it."""
    record = stream_dict(stream)
    record.update(
        {
            "color": sub["color"],
            "is_muted": bool(sub["is_muted"]),
            "in_home_view": not sub["is_muted"],
            "pin_to_top": bool(sub["pin_to_top"]),
            "desktop_notifications": _optional_bool(sub["desktop_notifications"]),
            "audible_notifications": _optional_bool(sub["audible_notifications"]),
            "push_notifications": _optional_bool(sub["push_notifications"]),
            "email_notifications": _optional_bool(sub["email_notifications"]),
            "wildcard_mentions_notify": _optional_bool(sub["wildcard_mentions_notify"]),
            # Zulip removed this at feature level 226; at 185 it is present. We have no
            # email gateway, so the address is one that tells the truth about that.
            "email_address": "",
        }
    )
    if subscribers is not None:
        record["subscribers"] = subscribers
    return record


_S1 = schema.subscription.alias("mine")
_S2 = schema.subscription.alias("peer")
_PEERS = (
    sa.select(_S1.c.stream_id)
    .select_from(_S1.join(_S2, _S2.c.stream_id == _S1.c.stream_id))
    .where(
        _S1.c.user_id == sa.bindparam("user_id"),
        _S1.c.active == sa.true(),
        _S2.c.active == sa.true(),
        # Deactivated users are few; excluding them this way needs no join with every peer.
        _S2.c.user_id.not_in(
            sa.select(schema.user.c.id).where(
                schema.user.c.realm_id == sa.bindparam("realm_id"),
                schema.user.c.is_active == sa.false(),
            )
        ),
    )
    # Grouped by the reader's side, whose index is in stream order: no sort before grouping.
    .group_by(_S1.c.stream_id)
)
# One row per stream with its subscribers aggregated by the database, read through the covering
# index on subscription (stream_id, active, user_id): SQLite concatenates them as text (parsed
# as a JSON array), PostgreSQL returns an ordered array.
_SUBSCRIBERS_SQLITE = Prepared(_PEERS.add_columns(sa.func.group_concat(_S2.c.user_id)))
_SUBSCRIBERS_POSTGRES = Prepared(
    _PEERS.add_columns(sa.func.array_agg(aggregate_order_by(_S2.c.user_id, _S2.c.user_id)))
)


def subscriber_lists(conn: Conn, user: User) -> dict[int, list[int]]:
    """The active subscribers of every stream `user` is subscribed to, ascending, by stream."""
    params = {"user_id": user.id, "realm_id": user.realm_id}
    if conn.is_sqlite:
        out = {}
        loads = orjson.loads
        for stream_id, joined in conn.tuples(_SUBSCRIBERS_SQLITE, params):
            ids = loads(f"[{joined}]")
            ids.sort()  # group_concat keeps the index order; sorting sorted lists is linear
            out[stream_id] = ids
        return out
    return dict(conn.tuples(_SUBSCRIBERS_POSTGRES, params))


_SUB_LABELS = [(c.name, f"sub_{c.name}") for c in schema.subscription.c]


def subscriptions_of(conn: Conn, user: User, include_subscribers: bool) -> list[dict[str, Any]]:
    rows = conn.all(
        sa.select(schema.stream, *[c.label(f"sub_{c.name}") for c in schema.subscription.c])
        .join(schema.subscription, SUB.stream_id == S.id)
        .where(SUB.user_id == user.id, SUB.active.is_(True), S.deactivated.is_(False))
        .order_by(sa.func.lower(S.name))
    )
    subscribers = subscriber_lists(conn, user) if include_subscribers and rows else {}
    out = []
    for row in rows:
        sub = {name: row[label] for name, label in _SUB_LABELS}
        out.append(
            subscription_dict(
                row, sub, subscribers.get(row["id"], []) if include_subscribers else None
            )
        )
    return out


def visible_streams(
    conn: Conn,
    user: User,
    *,
    include_public: bool,
    include_web_public: bool,
    include_subscribed: bool,
    include_all_active: bool,
) -> list[dict[str, Any]]:
    """GET /streams: the union of the classes of streams asked for, each checked for access."""
    rows = conn.all(
        sa.select(schema.stream)
        .where(S.realm_id == user.realm_id, S.deactivated.is_(False))
        .order_by(sa.func.lower(S.name))
    )
    subscribed = set(
        conn.scalars(sa.select(SUB.stream_id).where(SUB.user_id == user.id, SUB.active.is_(True)))
    )
    out = []
    for row in rows:
        keep = (
            include_all_active
            or (include_subscribed and row["id"] in subscribed)
            or (include_public and not row["invite_only"] and not user.is_guest)
            or (include_web_public and row["is_web_public"])
        )
        if keep:
            out.append(stream_dict(row))
    return out


_STREAM_NAMES = Prepared(sa.select(S.id, S.name).where(InIdList(S.id, "ids")))


def stream_names_by_id(conn: Conn, stream_ids: Iterable[int]) -> dict[int, str]:
    ids = list(set(stream_ids))
    if not ids:
        return {}
    return {row["id"]: row["name"] for row in conn.all(_STREAM_NAMES, {"ids": conn.id_list(ids)})}


def readable_stream_by_name(conn: Conn, user: User, name: str) -> Any:
    """Zulip's `access_stream_by_name`."""
    stream = stream_by_name(conn, user.realm_id, name)
    if stream is not None:
        sub = active_subscription(conn, user.id, stream["id"])
        if can_read_stream(user, stream, sub is not None):
            return stream
    raise ChatError(f"Invalid stream name '{name}'")


def stream_of_realm(
    conn: Conn, user: User, error: str, stream_id: int | None, name: str | None
) -> Any:
    """Zulip's `access_stream_to_remove_visibility_policy_by_*`: any stream of the realm, even
    one archived since, so that a policy can always be removed."""
    where = (
        S.id == stream_id
        if name is None
        else sa.func.lower(S.name) == sa.func.lower(sa.literal(name))
    )
    stream = conn.one(sa.select(schema.stream).where(S.realm_id == user.realm_id, where))
    if stream is None:
        raise ChatError(error)
    return stream
