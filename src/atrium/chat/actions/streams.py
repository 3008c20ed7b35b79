"""Subscribing users to streams, creating the streams that do not exist yet."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.realm import system_group_id
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.limits import MAX_STREAM_DESCRIPTION_LENGTH, MAX_STREAM_NAME_LENGTH
from atrium.chat.models import Realm, User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries import users as user_queries
from atrium.chat.queries.realm import load_realm
from atrium.chat.rendering import render_description
from atrium.core.db import Conn

# Zulip's palette for new subscriptions, handed out in turn.
STREAM_COLORS = (
    "#76ce90",
    "#fae589",
    "#a6c7e5",
    "#e79ab5",
    "#bfd56f",
    "#f4ae55",
    "#b0a5fd",
    "#addfe5",
    "#f5ce6e",
    "#c2726a",
    "#94c849",
    "#bd86e5",
    "#ee7e4a",
    "#a6dcbf",
    "#95a5fd",
    "#53a063",
    "#9987e1",
    "#e4523d",
    "#c2c2c2",
    "#4f8de4",
    "#c6a8ad",
    "#e7cc4d",
    "#c8bebf",
    "#a47462",
)


def check_stream_name(name: str) -> str:
    name = name.strip()
    if not name:
        raise ChatError("Stream name can't be empty!")
    if len(name) > MAX_STREAM_NAME_LENGTH:
        raise ChatError(f"Stream name too long (limit: {MAX_STREAM_NAME_LENGTH} characters).")
    for position, ch in enumerate(name, start=1):
        if ord(ch) < 32 or 0x7F <= ord(ch) <= 0x9F or 0xFDD0 <= ord(ch) <= 0xFDEF:
            raise ChatError(f"Invalid character in stream name, at position {position}!")
    return name


def check_description(description: str) -> str:
    description = description.replace("\r\n", " ").replace("\n", " ")
    if len(description) > MAX_STREAM_DESCRIPTION_LENGTH:
        raise ChatError(
            f"description is too long (limit: {MAX_STREAM_DESCRIPTION_LENGTH} characters)"
        )
    return description


@dataclass(frozen=True)
class StreamOptions:
    invite_only: bool = False
    is_web_public: bool = False
    history_public_to_subscribers: bool | None = None
    stream_post_policy: int = 1
    message_retention_days: int | None = None


@dataclass
class SubscribeResult:
    subscribed: dict[str, list[str]] = field(default_factory=dict)
    already_subscribed: dict[str, list[str]] = field(default_factory=dict)
    unauthorized: list[str] = field(default_factory=list)


def create_stream(
    conn: Conn, realm: Realm, creator: User, name: str, description: str, options: StreamOptions
) -> Any:
    now = time.time()
    if options.invite_only and options.is_web_public:
        raise ChatError("Invalid parameters")
    if not creator.satisfies_policy(
        realm.setting(
            "create_private_stream_policy" if options.invite_only else "create_public_stream_policy"
        ),
        realm,
        now,
    ):
        raise ChatError("Insufficient permission")
    if options.is_web_public and not (
        realm.setting("enable_spectator_access")
        and creator.satisfies_policy(realm.setting("create_web_public_stream_policy"), realm, now)
    ):
        raise ChatError("Insufficient permission")
    history_public = options.history_public_to_subscribers
    if history_public is None:
        history_public = not options.invite_only
    if not options.invite_only and not history_public:
        raise ChatError("Invalid parameters")
    stream_id = conn.scalar(
        sa.insert(schema.stream)
        .values(
            realm_id=realm.id,
            name=name,
            description=description,
            rendered_description=render_description(conn, realm.id, description),
            date_created=now,
            invite_only=options.invite_only,
            is_web_public=options.is_web_public,
            history_public_to_subscribers=history_public,
            stream_post_policy=options.stream_post_policy,
            message_retention_days=options.message_retention_days,
            can_remove_subscribers_group_id=system_group_id(conn, realm.id, "@role:administrators"),
        )
        .returning(schema.stream.c.id)
    )
    recipient_id = conn.scalar(
        sa.insert(schema.recipient)
        .values(type=schema.RECIPIENT_STREAM, type_id=stream_id)
        .returning(schema.recipient.c.id)
    )
    conn.execute(
        sa.update(schema.stream)
        .where(schema.stream.c.id == stream_id)
        .values(recipient_id=recipient_id)
    )
    return stream_queries.stream_by_id(conn, realm.id, stream_id)


def _next_color(conn: Conn, user_id: int) -> str:
    count = conn.scalar(sa.select(sa.func.count()).where(schema.subscription.c.user_id == user_id))
    return STREAM_COLORS[int(count or 0) % len(STREAM_COLORS)]


def add_subscription(conn: Conn, user_id: int, stream_id: int) -> bool:
    """Subscribe (or re-activate); False when the user was already subscribed."""
    existing = conn.one(
        sa.select(schema.subscription).where(
            schema.subscription.c.user_id == user_id, schema.subscription.c.stream_id == stream_id
        )
    )
    if existing is not None:
        if existing["active"]:
            return False
        conn.execute(
            sa.update(schema.subscription)
            .where(schema.subscription.c.id == existing["id"])
            .values(active=True)
        )
        return True
    conn.execute(
        sa.insert(schema.subscription).values(
            user_id=user_id, stream_id=stream_id, color=_next_color(conn, user_id)
        )
    )
    return True


def subscribe(
    conn: Conn,
    actor: User,
    specs: list[dict[str, Any]],
    principals: list[int] | list[str] | None,
    options: StreamOptions,
    authorization_errors_fatal: bool,
) -> Outcome[SubscribeResult]:
    """POST /users/me/subscriptions: the named streams (created if missing) for the principals
    (user ids or emails; none: the actor)."""
    principal_ids = (
        None if principals is None else user_queries.principal_ids(conn, actor.realm_id, principals)
    )
    realm = load_realm(conn, actor.realm_id)
    now = time.time()
    if actor.is_guest:
        raise ChatError("Not allowed for guest users")
    targets = principal_ids if principal_ids else [actor.id]
    if set(targets) - {actor.id} and not actor.satisfies_policy(
        realm.setting("invite_to_stream_policy"), realm, now
    ):
        raise ChatError("Insufficient permission")
    users = {
        row["id"]: row
        for row in conn.all(
            sa.select(
                schema.user.c.id, schema.user.c.email, schema.user.c.is_active, schema.user.c.role
            ).where(schema.user.c.id.in_(targets), schema.user.c.realm_id == actor.realm_id)
        )
    }
    if set(targets) - set(users) or any(not row["is_active"] for row in users.values()):
        raise ChatError("No such user")

    streams: list[Any] = []
    created: list[Any] = []
    result = SubscribeResult()
    for spec in specs:
        name = check_stream_name(str(spec.get("name", "")))
        stream = stream_queries.stream_by_name(conn, realm.id, name)
        if stream is None:
            description = check_description(str(spec.get("description", "")))
            stream = create_stream(conn, realm, actor, name, description, options)
            created.append(stream)
        else:
            subscribed = (
                stream_queries.active_subscription(conn, actor.id, stream["id"]) is not None
            )
            if stream["invite_only"] and not subscribed and not actor.is_admin:
                if authorization_errors_fatal:
                    raise ChatError(f"Unable to access stream ({stream['name']}).")
                result.unauthorized.append(stream["name"])
                continue
        streams.append(stream)
    added: dict[int, list[int]] = {}  # stream id -> newly subscribed user ids
    created_ids = {s["id"] for s in created}
    audiences_before = {
        s["id"]: set(stream_queries.stream_audience_ids(conn, s))
        for s in streams
        if s["id"] not in created_ids and s["invite_only"]
    }
    for user_id in targets:
        email = users[user_id]["email"]
        for stream in streams:
            if add_subscription(conn, user_id, stream["id"]):
                result.subscribed.setdefault(email, []).append(stream["name"])
                added.setdefault(stream["id"], []).append(user_id)
            else:
                result.already_subscribed.setdefault(email, []).append(stream["name"])
    notices = subscription_add_notices(conn, streams, created, added, audiences_before)
    return Outcome(result, notices)


def subscription_add_notices(
    conn: Conn,
    streams: list[Any],
    created: list[Any],
    added: dict[int, list[int]],
    audiences_before: dict[int, set[int]],
) -> list[Notice]:
    """Zulip's events for new subscriptions, each to exactly the users who may see it.

    A created stream is announced (`stream` create) to everyone who may see it; a user who
    could not see an existing private stream hears of it before its subscription; each new
    subscriber gets `subscription` add; the others who may see the subscribers get `peer_add`.
    """
    notices: list[Notice] = []
    for stream in created:
        audience = stream_queries.stream_audience_ids(conn, stream)
        notices.append(
            Notice(
                {"type": "stream", "op": "create", "streams": [stream_queries.stream_dict(stream)]},
                audience,
            )
        )
    for stream in streams:
        new_ids = added.get(stream["id"], [])
        if not new_ids:
            continue
        before = audiences_before.get(stream["id"])
        if before is not None:
            newly_seeing = [uid for uid in new_ids if uid not in before]
            if newly_seeing:
                notices.append(
                    Notice(
                        {
                            "type": "stream",
                            "op": "create",
                            "streams": [stream_queries.stream_dict(stream)],
                        },
                        newly_seeing,
                    )
                )
        subscribers = sorted(stream_queries.subscriber_ids(conn, stream["id"]))
        subs = conn.all(
            sa.select(schema.subscription).where(
                schema.subscription.c.stream_id == stream["id"],
                schema.subscription.c.user_id.in_(new_ids),
            )
        )
        for sub in subs:
            record = stream_queries.subscription_dict(stream, sub, subscribers)
            notices.append(
                Notice(
                    {"type": "subscription", "op": "add", "subscriptions": [record]},
                    [sub["user_id"]],
                )
            )
        peers = [
            uid for uid in stream_queries.stream_audience_ids(conn, stream) if uid not in new_ids
        ]
        if peers:
            notices.append(
                Notice(
                    {
                        "type": "subscription",
                        "op": "peer_add",
                        "stream_ids": [stream["id"]],
                        "user_ids": sorted(new_ids),
                    },
                    peers,
                )
            )
    return notices
