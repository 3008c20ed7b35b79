"""Ending subscriptions (DELETE /users/me/subscriptions) and a user's subscription settings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.groups import is_user_in_group
from atrium.chat.queries.users import principal_user
from atrium.core.db import Conn

U = schema.user.c
SUB = schema.subscription.c


@dataclass
class RemoveResult:
    removed: list[str] = field(default_factory=list)
    not_removed: list[str] = field(default_factory=list)


def _may_remove_others(conn: Conn, actor: User, stream: Any) -> bool:
    """Administrators anywhere; otherwise members of the stream's group who can access it."""
    if actor.is_admin:
        return True
    subscribed = stream_queries.active_subscription(conn, actor.id, stream["id"]) is not None
    if not stream_queries.can_read_stream(actor, stream, subscribed):
        return False
    return is_user_in_group(conn, stream["can_remove_subscribers_group_id"], actor.id)


def remove_subscriptions(
    conn: Conn, actor: User, names: list[str], principals: list[int] | list[str] | None
) -> Outcome[RemoveResult]:
    if principals:
        targets: dict[int, User] = {}
        for principal in principals:
            target = principal_user(conn, actor, principal)
            targets[target.id] = target
    else:
        targets = {actor.id: actor}
    others = [t for t in targets.values() if t.id != actor.id]
    # A user controls themselves and the bots they own (feature level 145).
    own_bots = [t for t in others if t.is_bot and t.bot_owner_id == actor.id]
    removing_others = len(own_bots) < len(others)

    streams: list[Any] = []
    missing: list[str] = []
    for raw_name in names:
        name = raw_name.strip()
        stream = stream_queries.stream_by_name(conn, actor.realm_id, name)
        if stream is None:
            missing.append(name)
            continue
        if removing_others and not _may_remove_others(conn, actor, stream):
            raise ChatError("Insufficient permission")
        if own_bots and not actor.is_admin:
            subscribed = stream_queries.active_subscription(conn, actor.id, stream["id"])
            if not stream_queries.can_read_stream(actor, stream, subscribed is not None):
                raise ChatError("Insufficient permission")
        streams.append(stream)
    if missing:
        raise ChatError(
            f"Stream(s) ({', '.join(missing)}) do not exist",
            "STREAM_DOES_NOT_EXIST",
            stream=missing[0],
        )

    result = RemoveResult()
    removed_by_user: dict[int, list[Any]] = {}
    removed_by_stream: dict[int, list[int]] = {}
    for target in targets.values():
        for stream in streams:
            ended = conn.execute(
                sa.update(schema.subscription)
                .where(
                    SUB.user_id == target.id,
                    SUB.stream_id == stream["id"],
                    SUB.active.is_(True),
                )
                .values(active=False)
            ).rowcount
            if ended:
                result.removed.append(stream["name"])
                removed_by_user.setdefault(target.id, []).append(stream)
                removed_by_stream.setdefault(stream["id"], []).append(target.id)
            else:
                result.not_removed.append(stream["name"])

    notices: list[Notice] = []
    for user_id, user_streams in removed_by_user.items():
        notices.append(
            Notice(
                {
                    "type": "subscription",
                    "op": "remove",
                    "subscriptions": [
                        {"name": s["name"], "stream_id": s["id"]} for s in user_streams
                    ],
                },
                [user_id],
            )
        )
    for stream in streams:
        removed_ids = removed_by_stream.get(stream["id"])
        if not removed_ids:
            continue
        peers = [
            uid
            for uid in stream_queries.stream_audience_ids(conn, stream)
            if uid not in removed_ids
        ]
        if peers:
            notices.append(
                Notice(
                    {
                        "type": "subscription",
                        "op": "peer_remove",
                        "stream_ids": [stream["id"]],
                        "user_ids": sorted(removed_ids),
                    },
                    peers,
                )
            )
    return Outcome(result, notices)


_COLOR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")
BOOLEAN_PROPERTIES = (
    "in_home_view",
    "is_muted",
    "desktop_notifications",
    "audible_notifications",
    "push_notifications",
    "email_notifications",
    "pin_to_top",
    "wildcard_mentions_notify",
)


def check_property_value(prop: str, value: Any) -> Any:
    if prop == "color":
        if not isinstance(value, str) or not _COLOR_RE.match(value):
            raise ChatError(f"{prop} is not a valid hex color code")
        return value
    if prop in BOOLEAN_PROPERTIES:
        if not isinstance(value, bool):
            raise ChatError(f"{prop} is not a boolean")
        return value
    raise ChatError(f"Unknown subscription property: {prop}")


def update_subscription_properties(
    conn: Conn, actor: User, changes: list[dict[str, Any]]
) -> Outcome[None]:
    """POST /users/me/subscriptions/properties: each change checked, all applied or none."""
    notices: list[Notice] = []
    for change in changes:
        stream_id, prop, value = change["stream_id"], change["property"], change["value"]
        if prop != "color" and prop not in BOOLEAN_PROPERTIES:
            raise ChatError(f"Unknown subscription property: {prop}")
        _stream, sub = stream_queries.stream_for_reading(
            conn, actor, stream_id, allow_realm_admin=False
        )
        if sub is None:
            raise ChatError(f"Not subscribed to stream id {stream_id}")
        value = check_property_value(prop, value)
        # The database keeps is_muted; the events of this feature level still say in_home_view.
        column, stored = prop, value
        event_prop, event_value = prop, value
        if prop == "in_home_view":
            column, stored = "is_muted", not value
        if prop == "is_muted":
            event_prop, event_value = "in_home_view", not value
        conn.execute(
            sa.update(schema.subscription).where(SUB.id == sub["id"]).values({column: stored})
        )
        notices.append(
            Notice(
                {
                    "type": "subscription",
                    "op": "update",
                    "stream_id": stream_id,
                    "property": event_prop,
                    "value": event_value,
                },
                [actor.id],
            )
        )
    return Outcome(None, notices)
