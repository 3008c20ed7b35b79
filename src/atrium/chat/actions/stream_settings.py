"""Changing a stream's settings (PATCH /streams/{id}) and archiving it (DELETE /streams/{id}).

Every change is announced as Zulip does: a `stream` update event per changed property, to the
users who may see the stream; a privacy change also tells the users who gain sight of the
stream (`stream` create) and those who lose it (`stream` delete). Zulip 7 also has the
Notification Bot post each change (permissions, retention, description, name, posting policy)
to the stream's "stream events" topic (`stream_notifications`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions import stream_notifications as bot_texts
from atrium.chat.actions.default_streams import default_streams_notice
from atrium.chat.actions.realm_settings import parse_retention
from atrium.chat.actions.streams import check_description, check_stream_name
from atrium.chat.errors import ChatError, must_be_admin, must_be_owner
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import STREAM_POST_ADMINS, STREAM_POST_EVERYONE, User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.realm import load_realm
from atrium.chat.rendering import render_description
from atrium.core.db import Conn

S = schema.stream.c
G = schema.user_group.c

# Sentinel for "not given": None is a real value of message_retention_days (the realm's).
UNCHANGED: Any = object()

STREAM_POST_POLICIES = (1, 2, 3, 4)


@dataclass(frozen=True)
class StreamChanges:
    """What PATCH /streams/{id} asked for; `None` (or UNCHANGED) means "leave as it is"."""

    description: str | None = None
    new_name: str | None = None
    is_private: bool | None = None
    is_web_public: bool | None = None
    history_public_to_subscribers: bool | None = None
    stream_post_policy: int | None = None
    is_announcement_only: bool | None = None
    # As given: an integer, `unlimited` or `realm_default` (checked after the owner check).
    message_retention_days: Any = UNCHANGED
    can_remove_subscribers_group_id: int | None = None


def check_stream_name_available(conn: Conn, realm_id: int, name: str) -> None:
    if stream_queries.stream_by_name(conn, realm_id, name) is not None:
        raise ChatError(f"Stream name '{name}' is already taken.")


def check_can_remove_subscribers_group(conn: Conn, realm_id: int, group_id: int) -> int:
    """Zulip's rules for this setting: a system group, never @role:internet or @role:owners."""
    setting = "can_remove_subscribers_group"
    group = conn.one(sa.select(schema.user_group).where(G.id == group_id, G.realm_id == realm_id))
    if group is None:
        raise ChatError("Invalid user group")
    if not group["is_system_group"]:
        raise ChatError(f"'{setting}' must be a system user group.")
    for forbidden in ("@role:internet", "@role:owners"):
        if group["name"] == forbidden:
            raise ChatError(f"'{setting}' setting cannot be set to '{forbidden}' group.")
    return group_id


def _stream_event(stream: Any, prop: str, value: Any, **extra: Any) -> dict[str, Any]:
    return {
        "type": "stream",
        "op": "update",
        "stream_id": stream["id"],
        "name": stream["name"],
        "property": prop,
        "value": value,
        **extra,
    }


def update_stream(
    conn: Conn, actor: User, web_public_enabled: bool, stream_id: int, changes: StreamChanges
) -> Outcome[None]:
    """PATCH /streams/{id}: validate the whole proposed state, then apply each change."""
    stream, sub = stream_queries.stream_for_update(conn, actor, stream_id)
    realm = load_realm(conn, actor.realm_id)

    proposed_private = (
        changes.is_private if changes.is_private is not None else bool(stream["invite_only"])
    )
    proposed_web_public = (
        changes.is_web_public
        if changes.is_web_public is not None
        else bool(stream["is_web_public"])
    )
    if changes.history_public_to_subscribers is not None:
        proposed_history = changes.history_public_to_subscribers
    elif changes.is_private is not None:
        # A private stream has protected history by default, a public one public history.
        proposed_history = not changes.is_private
    else:
        proposed_history = bool(stream["history_public_to_subscribers"])
    if proposed_web_public and (not proposed_history or proposed_private):
        raise ChatError("Invalid parameters")
    if not proposed_private and not proposed_history:
        raise ChatError("Invalid parameters")
    is_default = (
        conn.scalar(
            sa.select(schema.default_stream.c.stream_id).where(
                schema.default_stream.c.stream_id == stream_id
            )
        )
        is not None
    )
    if proposed_private and is_default:
        raise ChatError("A default stream cannot be private.")
    if changes.is_private is not None and sub is None:
        # Even an administrator must be subscribed to change a private stream's privacy.
        stream_queries.stream_for_reading(conn, actor, stream_id, allow_realm_admin=False)
    if changes.is_web_public:
        if not (web_public_enabled and realm.setting("enable_spectator_access")):
            raise ChatError("Web-public streams are not enabled.")
        if not actor.satisfies_policy(
            realm.setting("create_web_public_stream_policy"), realm, time.time()
        ):
            raise ChatError("Insufficient permission")
    retention_days: Any = UNCHANGED
    if changes.message_retention_days is not UNCHANGED:
        if not actor.is_owner:
            raise must_be_owner()
        retention_days = parse_retention(
            "message_retention_days",
            changes.message_retention_days,
            {"unlimited": -1, "realm_default": None},
        )
    description = None
    if changes.description is not None:
        description = check_description(changes.description)
    new_name = None
    if changes.new_name is not None:
        new_name = check_stream_name(changes.new_name)
        if new_name == stream["name"]:
            raise ChatError("Stream already has that name!")
        if new_name.lower() != stream["name"].lower():
            check_stream_name_available(conn, actor.realm_id, new_name)
    group_id = None
    if (
        changes.can_remove_subscribers_group_id is not None
        and changes.can_remove_subscribers_group_id != stream["can_remove_subscribers_group_id"]
    ):
        if sub is None and stream["invite_only"]:
            raise ChatError("Invalid stream ID")
        group_id = check_can_remove_subscribers_group(
            conn, actor.realm_id, changes.can_remove_subscribers_group_id
        )
    post_policy = changes.stream_post_policy
    if changes.is_announcement_only is not None:
        post_policy = STREAM_POST_ADMINS if changes.is_announcement_only else STREAM_POST_EVERYONE

    notices: list[Notice] = []
    audience_before = stream_queries.stream_audience_ids(conn, stream)

    def apply(values: dict[str, Any]) -> Any:
        conn.execute(sa.update(schema.stream).where(S.id == stream_id).values(**values))
        return stream_queries.stream_by_id(conn, actor.realm_id, stream_id)

    if (
        changes.is_private is not None
        or changes.is_web_public is not None
        or changes.history_public_to_subscribers is not None
    ):
        privacy = {
            "invite_only": proposed_private,
            "history_public_to_subscribers": proposed_history,
            "is_web_public": proposed_web_public,
        }
        if any(bool(stream[k]) != v for k, v in privacy.items()):
            old_policy = bot_texts.permission_policy_name(
                bool(stream["invite_only"]),
                bool(stream["history_public_to_subscribers"]),
                bool(stream["is_web_public"]),
            )
            stream = apply(privacy)
            audience_after = stream_queries.stream_audience_ids(conn, stream)
            gained = sorted(set(audience_after) - set(audience_before))
            lost = sorted(set(audience_before) - set(audience_after))
            if gained:
                notices.append(
                    Notice(
                        {
                            "type": "stream",
                            "op": "create",
                            "streams": [stream_queries.stream_dict(stream)],
                        },
                        gained,
                    )
                )
            notices.append(
                Notice(
                    _stream_event(
                        stream,
                        "invite_only",
                        proposed_private,
                        history_public_to_subscribers=proposed_history,
                        is_web_public=proposed_web_public,
                    ),
                    audience_after,
                )
            )
            if lost:
                notices.append(
                    Notice(
                        {
                            "type": "stream",
                            "op": "delete",
                            "streams": [stream_queries.stream_dict(stream)],
                        },
                        lost,
                    )
                )
            new_policy = bot_texts.permission_policy_name(
                proposed_private, proposed_history, proposed_web_public
            )
            notices += bot_texts.post_stream_event(
                conn, actor, stream, bot_texts.permission_text(actor, old_policy, new_policy)
            )
    audience = stream_queries.stream_audience_ids(conn, stream)
    if retention_days is not UNCHANGED:
        days = retention_days
        if stream["message_retention_days"] != days:
            old_days = stream["message_retention_days"]
            stream = apply({"message_retention_days": days})
            notices.append(Notice(_stream_event(stream, "message_retention_days", days), audience))
            text = bot_texts.retention_text(
                actor, old_days, days, realm.setting("message_retention_days")
            )
            notices += bot_texts.post_stream_event(conn, actor, stream, text)
    if description is not None and description != stream["description"]:
        old_description = stream["description"]
        rendered = render_description(conn, actor.realm_id, description)
        stream = apply({"description": description, "rendered_description": rendered})
        notices.append(
            Notice(
                _stream_event(stream, "description", description, rendered_description=rendered),
                audience,
            )
        )
        text = bot_texts.description_text(actor, old_description, description)
        notices += bot_texts.post_stream_event(conn, actor, stream, text)
    if new_name is not None:
        old_name = stream["name"]
        stream = apply({"name": new_name})
        event = _stream_event(stream, "name", new_name)
        event["name"] = old_name  # Zulip names the stream by its old name in this event.
        notices.append(Notice(event, audience))
        text = bot_texts.rename_text(actor, old_name, new_name)
        notices += bot_texts.post_stream_event(conn, actor, stream, text)
    if post_policy is not None and post_policy != stream["stream_post_policy"]:
        old_post_policy = stream["stream_post_policy"]
        stream = apply({"stream_post_policy": post_policy})
        notices.append(Notice(_stream_event(stream, "stream_post_policy", post_policy), audience))
        # Zulip still sends the pre-feature-level-1 property for old clients.
        notices.append(
            Notice(
                _stream_event(stream, "is_announcement_only", post_policy == STREAM_POST_ADMINS),
                audience,
            )
        )
        text = bot_texts.post_policy_text(actor, old_post_policy, post_policy)
        notices += bot_texts.post_stream_event(conn, actor, stream, text)
    if group_id is not None:
        stream = apply({"can_remove_subscribers_group_id": group_id})
        notices.append(
            Notice(_stream_event(stream, "can_remove_subscribers_group_id", group_id), audience)
        )
    return Outcome(None, notices)


def archive_stream(conn: Conn, actor: User, stream_id: int) -> Outcome[None]:
    """DELETE /streams/{id}: Zulip 7 deactivates the stream and frees its name.

    The archived stream keeps its messages; its name gets a `!DEACTIVATED:` prefix (one more
    `!` per earlier archive of the same name), every subscription ends, and it stops being a
    default stream.
    """
    if not actor.is_admin:
        raise must_be_admin()
    stream, _sub = stream_queries.stream_for_update(conn, actor, stream_id)
    audience = stream_queries.stream_audience_ids(conn, stream)
    event_stream = stream_queries.stream_dict(stream)
    bangs = 1
    while True:
        new_name = ("!" * bangs + "DEACTIVATED:" + stream["name"])[:60]
        taken = conn.scalar(
            sa.select(S.id).where(
                S.realm_id == actor.realm_id, sa.func.lower(S.name) == new_name.lower()
            )
        )
        if taken is None:
            break
        bangs += 1
    conn.execute(
        sa.update(schema.stream)
        .where(S.id == stream_id)
        .values(deactivated=True, invite_only=True, name=new_name)
    )
    conn.execute(
        sa.update(schema.subscription)
        .where(schema.subscription.c.stream_id == stream_id)
        .values(active=False)
    )
    notices: list[Notice] = []
    removed_default = conn.execute(
        sa.delete(schema.default_stream).where(schema.default_stream.c.stream_id == stream_id)
    ).rowcount
    if removed_default:
        notices.append(default_streams_notice(conn, actor.realm_id))
    notices.append(Notice({"type": "stream", "op": "delete", "streams": [event_stream]}, audience))
    return Outcome(None, notices)
