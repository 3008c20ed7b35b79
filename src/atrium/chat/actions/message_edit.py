"""Editing and moving messages (PATCH /messages/{id}) and deleting them (DELETE /messages/{id}).

Zulip's rules, in Zulip's order: access, then the shape of the request, then permissions (realm
policies and time limits, with a 20-second grace), then the change itself. A move applies to one
message, to it and the later messages of its topic, or to the whole topic (`propagate_mode`),
restricted to the messages the caller can access; it keeps Zulip's edit history, re-renders edited
content, adjusts delivery rows when a stream changes, and lets the Notification Bot leave
breadcrumbs in the old and new threads (or mark a topic resolved / unresolved).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import sqlalchemy as sa

from atrium.chat import flags, schema, search
from atrium.chat.actions import notification_bot
from atrium.chat.actions.attachments import link_attachments, unlink_message
from atrium.chat.actions.messages import check_wildcard_mention, normalize_content, truncate
from atrium.chat.actions.reactions import delete_reactions_of
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.limits import MAX_TOPIC_LENGTH
from atrium.chat.models import Realm, User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.alert_words import alerted_users
from atrium.chat.queries.linkifiers import realm_linkifiers
from atrium.chat.queries.messages import TopicLinks, readable_message
from atrium.chat.queries.realm import load_realm
from atrium.chat.rendering import Prerendered, group_member_ids, render_message
from atrium.core.db import Conn

M = schema.message.c
UM = schema.user_message.c
U = schema.user.c

PROPAGATE_MODES = ("change_one", "change_later", "change_all")
RESOLVED_TOPIC_PREFIX = "✔ "
# Every edit and move time limit gets this much slack (network delays, the client's countdown).
EDIT_LIMIT_GRACE_SECONDS = 20
CHUNK = 5000

# The flags a content edit recomputes from the new rendering.
_MENTION_BITS = (
    flags.MENTIONED
    | flags.STREAM_WILDCARD_MENTIONED
    | flags.TOPIC_WILDCARD_MENTIONED
    | flags.GROUP_MENTIONED
)


@dataclass(frozen=True)
class EditRequest:
    content: str | None = None
    topic: str | None = None
    stream_id: int | None = None
    propagate_mode: str = "change_one"
    send_notification_to_old_thread: bool = False
    send_notification_to_new_thread: bool = True
    # The new content's rendering, made before the write off the event loop (`prerender`).
    prerendered: Prerendered | None = None


def _chunks(ids: Sequence[int]) -> list[list[int]]:
    return [list(ids[i : i + CHUNK]) for i in range(0, len(ids), CHUNK)]


def can_access_stream_history(conn: Conn, user: User, stream: Any) -> bool:
    if not stream["history_public_to_subscribers"]:
        return False
    subscribed = stream_queries.active_subscription(conn, user.id, stream["id"]) is not None
    return stream_queries.can_read_stream(user, stream, subscribed)


def topic_message_ids(
    conn: Conn, user: User, stream: Any, topic: str, from_id: int | None = None
) -> list[int]:
    """The ids (ascending) of a topic's messages the user can access, optionally from one id on."""
    query = sa.select(M.id).where(
        M.stream_id == stream["id"], sa.func.lower(M.topic) == sa.func.lower(sa.literal(topic))
    )
    if from_id is not None:
        query = query.where(M.id >= from_id)
    if not can_access_stream_history(conn, user, stream):
        query = query.where(M.id.in_(sa.select(UM.message_id).where(UM.user_id == user.id)))
    return [int(i) for i in conn.scalars(query.order_by(M.id))]


def _deadline_passed(date_sent: float, limit: int | None, now: float) -> bool:
    return limit is not None and now - date_sent > limit + EDIT_LIMIT_GRACE_SECONDS


def _check_topic(topic: str) -> str:
    if not topic:
        raise ChatError("Topic can't be empty!")
    if "\x00" in topic:
        raise ChatError("Topic must not contain null bytes")
    topic = "".join(" " if ord(ch) < 32 else ch for ch in topic)
    return truncate(topic, MAX_TOPIC_LENGTH, "...")


def _check_change_all_time_limit(
    conn: Conn,
    user: User,
    realm: Realm,
    stream: Any,
    topic: str,
    topic_changed: bool,
    stream_changed: bool,
    now: float,
) -> None:
    """MOVE_MESSAGES_TIME_LIMIT_EXCEEDED when only part of the topic may still be moved."""
    limits = []
    within = realm.setting("move_messages_within_stream_limit_seconds")
    between = realm.setting("move_messages_between_streams_limit_seconds")
    if topic_changed and within is not None:
        limits.append(within + EDIT_LIMIT_GRACE_SECONDS)
    if stream_changed and between is not None:
        limits.append(between + EDIT_LIMIT_GRACE_SECONDS)
    if not limits:
        return
    oldest_allowed = now - min(limits)
    ids = topic_message_ids(conn, user, stream, topic)
    allowed: list[int] = []
    for chunk in _chunks(ids):
        allowed += [
            int(i)
            for i in conn.scalars(
                sa.select(M.id).where(M.id.in_(chunk), M.date_sent > oldest_allowed)
            )
        ]
    if len(allowed) == len(ids):
        return
    allowed.sort()
    raise ChatError(
        "You only have permission to move the "
        f"{len(allowed)}/{len(ids)} most recent messages in this topic.",
        "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
        first_message_id_allowed_to_move=allowed[0] if allowed else None,
        total_messages_in_topic=len(ids),
        total_messages_allowed_to_move=len(allowed),
    )


def update_message(conn: Conn, user: User, message_id: int, request: EditRequest) -> Outcome[int]:
    """Apply one PATCH /messages/{id}; the number of messages changed."""
    now = time.time()
    row = readable_message(conn, user, message_id)
    if row is None:
        raise ChatError("Invalid message(s)")
    if request.propagate_mode not in PROPAGATE_MODES:
        raise ChatError("Invalid propagate_mode")
    realm = load_realm(conn, user.realm_id)
    is_stream_message = row["stream_id"] is not None

    topic = request.topic
    if topic is not None:
        topic = topic.strip()
        if topic == row["topic"]:
            topic = None
    stream_id = request.stream_id
    if stream_id is not None and stream_id == row["stream_id"]:
        stream_id = None
    content = request.content

    if topic is None and content is None and stream_id is None:
        raise ChatError("Nothing to change")
    if not is_stream_message:
        if stream_id is not None:
            raise ChatError("Direct messages cannot be moved to streams.")
        if topic is not None:
            raise ChatError("Direct messages cannot have topics.")
    if request.propagate_mode != "change_one" and topic is None and stream_id is None:
        raise ChatError("Invalid propagate_mode without topic edit")
    if topic is not None:
        topic = _check_topic(topic)
    if stream_id is not None and content is not None:
        raise ChatError("Cannot change message content while changing stream")

    date_sent = float(row["date_sent"])
    if content is not None:
        if not realm.setting("allow_message_editing"):
            raise ChatError("Your organization has turned off message editing")
        if row["sender_id"] != user.id:
            raise ChatError("You don't have permission to edit this message")
        if _deadline_passed(date_sent, realm.setting("message_content_edit_limit_seconds"), now):
            raise ChatError("The time limit for editing this message has passed")
        if not content.rstrip():
            content = "(deleted)"
        content = normalize_content(content)

    if topic is not None:
        if not user.satisfies_policy(realm.setting("edit_topic_policy"), realm, now):
            raise ChatError("You don't have permission to edit this message")
        if not user.is_moderator and _deadline_passed(
            date_sent, realm.setting("move_messages_within_stream_limit_seconds"), now
        ):
            raise ChatError("The time limit for editing this message's topic has passed.")

    old_stream = (
        stream_queries.stream_by_id(conn, user.realm_id, row["stream_id"])
        if is_stream_message
        else None
    )
    new_stream = old_stream
    if stream_id is not None:
        policy = realm.setting("move_messages_between_streams_policy")
        if not user.satisfies_policy(policy, realm, now):
            raise ChatError("You don't have permission to move this message")
        new_stream = stream_queries.stream_by_id(conn, user.realm_id, stream_id)
        if new_stream is None:
            raise ChatError("Invalid stream ID")
        subscribed = stream_queries.active_subscription(conn, user.id, stream_id) is not None
        if not stream_queries.can_read_stream(user, new_stream, subscribed):
            raise ChatError("Invalid stream ID")
        if not user.is_moderator and _deadline_passed(
            date_sent, realm.setting("move_messages_between_streams_limit_seconds"), now
        ):
            raise ChatError("The time limit for editing this message's stream has passed")

    moving = topic is not None or stream_id is not None
    if moving and request.propagate_mode == "change_all" and not user.is_moderator:
        assert old_stream is not None
        _check_change_all_time_limit(
            conn,
            user,
            realm,
            old_stream,
            row["topic"],
            topic is not None,
            stream_id is not None,
            now,
        )

    rendered = None
    if content is not None:
        sender_row = conn.one(sa.select(schema.user).where(U.id == row["sender_id"]))
        sender = User.from_row(sender_row)
        rendered = render_message(conn, sender, content, request.prerendered)
        if is_stream_message and (
            rendered.stream_wildcard_mentioned or rendered.topic_wildcard_mentioned
        ):
            check_wildcard_mention(
                sender, realm, len(stream_queries.subscriber_ids(conn, row["stream_id"]))
            )

    # The messages that change.
    if moving:
        assert old_stream is not None
        if request.propagate_mode == "change_one":
            changed = [message_id]
        else:
            from_id = message_id if request.propagate_mode == "change_later" else None
            changed = topic_message_ids(conn, user, old_stream, row["topic"], from_id)
            if message_id not in changed:
                changed = sorted([*changed, message_id])
    else:
        changed = [message_id]

    entry: dict[str, Any] = {"user_id": user.id, "timestamp": int(now)}
    target_entry = dict(entry)
    if content is not None and rendered is not None:
        target_entry.update(
            prev_content=row["content"],
            prev_rendered_content=row["rendered_content"],
            prev_rendered_content_version=row["rendered_content_version"] or 1,
        )
        conn.execute(
            sa.update(schema.message)
            .where(M.id == message_id)
            .values(
                content=content,
                rendered_content=rendered.html,
                rendered_content_version=1,
                is_me_message=rendered.is_me_message,
                has_link="<a " in rendered.html,
                has_image="<img " in rendered.html,
            )
        )
        _update_mention_flags(conn, message_id, rendered)
        _update_alert_flags(conn, user.realm_id, row["sender_id"], message_id, content)
        attachment_notices = link_attachments(conn, user, message_id, content)
    if topic is not None:
        for e in (entry, target_entry):
            e.update(prev_topic=row["topic"], topic=topic)
    if stream_id is not None:
        assert new_stream is not None
        for e in (entry, target_entry):
            e.update(prev_stream=row["stream_id"], stream=stream_id)

    if moving:
        values: dict[str, Any] = {"last_edit_time": now}
        if topic is not None:
            values["topic"] = topic
        if stream_id is not None:
            assert new_stream is not None
            values["stream_id"] = stream_id
            values["recipient_id"] = new_stream["recipient_id"]
        for chunk in _chunks(changed):
            conn.execute(sa.update(schema.message).where(M.id.in_(chunk)).values(**values))
    else:
        conn.execute(sa.update(schema.message).where(M.id == message_id).values(last_edit_time=now))
    _prepend_history(conn, changed, message_id, entry, target_entry)
    if topic is not None:
        search.index_messages(conn, changed)
    elif content is not None:
        search.index_messages(conn, [message_id])

    notices: list[Notice] = []
    lost_access: set[int] = set()
    if stream_id is not None:
        assert old_stream is not None and new_stream is not None
        lost_access = _move_delivery_rows(conn, changed, old_stream, new_stream, row["topic"])
        if lost_access:
            notices.append(
                Notice(
                    {
                        "type": "delete_message",
                        "message_type": "stream",
                        "message_ids": changed,
                        "stream_id": old_stream["id"],
                        "topic": row["topic"],
                    },
                    sorted(lost_access),
                )
            )
    notices += _update_notices(
        conn, user, row, message_id, changed, request, topic, new_stream, content, rendered, now
    )
    if moving:
        assert old_stream is not None and new_stream is not None
        notices += _breadcrumbs(
            conn, user, request, old_stream, new_stream, row["topic"], topic, len(changed)
        )
    if content is not None:
        notices += attachment_notices
    return Outcome(len(changed), notices)


def _update_mention_flags(conn: Conn, message_id: int, rendered: Any) -> None:
    """Recompute the mention flags of everyone who received the message (not historical rows)."""
    received = sa.and_(UM.message_id == message_id, UM.flags.op("&")(flags.HISTORICAL) == 0)
    conn.execute(
        sa.update(schema.user_message)
        .where(received)
        .values(flags=UM.flags.op("&")(~_MENTION_BITS & ((1 << 62) - 1)))
    )
    mentioned = rendered.mentioned_user_ids | group_member_ids(conn, rendered.mentioned_group_ids)
    if mentioned:
        conn.execute(
            sa.update(schema.user_message)
            .where(received, UM.user_id.in_(sorted(mentioned)))
            .values(flags=UM.flags.op("|")(flags.MENTIONED))
        )
    if rendered.stream_wildcard_mentioned or rendered.topic_wildcard_mentioned:
        conn.execute(
            sa.update(schema.user_message)
            .where(received)
            .values(flags=UM.flags.op("|")(flags.STREAM_WILDCARD_MENTIONED))
        )


def _update_alert_flags(
    conn: Conn, realm_id: int, sender_id: int, message_id: int, content: str
) -> None:
    """Recompute `has_alert_word` from the new content for everyone who received the message
    (not its sender, whose own words never alert them; not historical rows)."""
    received = sa.and_(UM.message_id == message_id, UM.flags.op("&")(flags.HISTORICAL) == 0)
    receivers = [
        int(uid)
        for uid in conn.scalars(sa.select(UM.user_id).where(received, UM.user_id != sender_id))
    ]
    alerted = alerted_users(conn, realm_id, receivers, content)
    bit = flags.BIT["has_alert_word"]
    conn.execute(
        sa.update(schema.user_message)
        .where(received, UM.flags.op("&")(bit) != 0)
        .values(flags=UM.flags.op("&")(~bit & ((1 << 62) - 1)))
    )
    if alerted:
        conn.execute(
            sa.update(schema.user_message)
            .where(received, UM.user_id.in_(sorted(alerted)))
            .values(flags=UM.flags.op("|")(bit))
        )


def _prepend_history(
    conn: Conn,
    changed: Sequence[int],
    target_id: int,
    entry: dict[str, Any],
    target_entry: dict[str, Any],
) -> None:
    """Zulip's edit_history: newest entry first, on every changed message."""
    fresh = orjson.dumps([entry]).decode()
    updates: list[dict[str, Any]] = []
    for chunk in _chunks(changed):
        for r in conn.all(
            sa.select(M.id, M.edit_history).where(
                M.id.in_(chunk), sa.or_(M.edit_history.is_not(None), M.id == target_id)
            )
        ):
            mine = target_entry if r["id"] == target_id else entry
            history = orjson.loads(r["edit_history"]) if r["edit_history"] else []
            updates.append({"mid": r["id"], "history": orjson.dumps([mine, *history]).decode()})
        conn.execute(
            sa.update(schema.message)
            .where(M.id.in_(chunk), M.edit_history.is_(None), M.id != target_id)
            .values(edit_history=fresh)
        )
    conn.executemany(
        sa.update(schema.message)
        .where(M.id == sa.bindparam("mid"))
        .values(edit_history=sa.bindparam("history")),
        updates,
    )


def _move_delivery_rows(
    conn: Conn, changed: Sequence[int], old_stream: Any, new_stream: Any, topic: str
) -> set[int]:
    """Who receives the moved messages now: the new stream's subscribers. Those who lose access.

    As in Zulip 7, subscribers of the new stream who had no delivery rows get them (flagged read)
    only when its history is protected, since that is then their only way to read the messages;
    with public history they read them as history. They hear of the move by `update_message`
    (with their flags, from those rows), never by `message` events.
    """
    new_subscribers = set(stream_queries.subscriber_ids(conn, new_stream["id"]))
    holders: set[int] = set()
    for chunk in _chunks(changed):
        holders |= set(
            conn.scalars(sa.select(UM.user_id).where(UM.message_id.in_(chunk)).distinct())
        )
    losing = holders - new_subscribers
    gaining = set() if new_stream["history_public_to_subscribers"] else new_subscribers - holders
    if losing:
        for chunk in _chunks(changed):
            conn.execute(
                sa.delete(schema.user_message).where(
                    UM.message_id.in_(chunk), UM.user_id.in_(sorted(losing))
                )
            )
    if gaining:
        rows = []
        for chunk in _chunks(changed):
            present = {
                (r["user_id"], r["message_id"])
                for r in conn.all(
                    sa.select(UM.user_id, UM.message_id).where(
                        UM.message_id.in_(chunk), UM.user_id.in_(sorted(gaining))
                    )
                )
            }
            # A user new to these messages was not mentioned in them: only `read` applies.
            rows += [
                {"user_id": uid, "message_id": mid, "flags": flags.READ}
                for uid in gaining
                for mid in chunk
                if (uid, mid) not in present
            ]
        conn.executemany(
            sa.insert(schema.user_message).values(
                user_id=sa.bindparam("user_id"),
                message_id=sa.bindparam("message_id"),
                flags=sa.bindparam("flags"),
            ),
            rows,
        )
    lost_access = set()
    if losing:
        for r in conn.all(sa.select(U.id, U.role).where(U.id.in_(sorted(losing)))):
            reader = r["role"]
            is_guest = reader == 600
            public = not new_stream["invite_only"] and (not is_guest or new_stream["is_web_public"])
            if not public:
                lost_access.add(int(r["id"]))
    return lost_access


def _update_notices(
    conn: Conn,
    user: User,
    row: Any,
    message_id: int,
    changed: Sequence[int],
    request: EditRequest,
    topic: str | None,
    new_stream: Any,
    content: str | None,
    rendered: Any,
    now: float,
) -> list[Notice]:
    event: dict[str, Any] = {
        "type": "update_message",
        "user_id": user.id,
        "edit_timestamp": int(now),
        "message_id": message_id,
        "message_ids": sorted(changed),
        "rendering_only": False,
    }
    if row["stream_id"] is not None:
        event["stream_id"] = row["stream_id"]
        names = stream_queries.stream_names_by_id(conn, [row["stream_id"]])
        event["stream_name"] = names.get(row["stream_id"], "")
    if topic is not None or (new_stream is not None and new_stream["id"] != row["stream_id"]):
        event["propagate_mode"] = request.propagate_mode
        event["orig_subject"] = row["topic"]
    if topic is not None:
        event["subject"] = topic
        event["topic_links"] = TopicLinks(realm_linkifiers(conn, user.realm_id)).of(
            {"stream_id": row["stream_id"], "topic": topic}
        )
    if new_stream is not None and new_stream["id"] != row["stream_id"]:
        event["new_stream_id"] = new_stream["id"]
    if content is not None and rendered is not None:
        event.update(
            orig_content=row["content"],
            orig_rendered_content=row["rendered_content"],
            prev_rendered_content_version=row["rendered_content_version"] or 1,
            content=content,
            rendered_content=rendered.html,
            is_me_message=rendered.is_me_message,
        )
    by_flags: dict[int, list[int]] = defaultdict(list)
    for r in conn.all(sa.select(UM.user_id, UM.flags).where(UM.message_id == message_id)):
        by_flags[int(r["flags"])].append(int(r["user_id"]))
    notices = [
        Notice({**event, "flags": flags.flags_list(bits)}, uids) for bits, uids in by_flags.items()
    ]
    moved_stream = new_stream is not None and new_stream["id"] != row["stream_id"]
    if row["stream_id"] is not None and not moved_stream:
        # As Zulip does: subscribers who read the stream's public history without having
        # received the message hear of the edit too, with the flags a reader of history has.
        stream = stream_queries.stream_by_id(conn, user.realm_id, row["stream_id"])
        if stream is not None and stream["history_public_to_subscribers"]:
            received = {uid for uids in by_flags.values() for uid in uids}
            readers = [
                uid
                for uid in stream_queries.subscriber_ids(conn, stream["id"])
                if uid not in received
            ]
            if readers:
                notices.append(Notice({**event, "flags": ["read"]}, readers))
    return notices


def _breadcrumbs(
    conn: Conn,
    user: User,
    request: EditRequest,
    old_stream: Any,
    new_stream: Any,
    old_topic: str,
    new_topic: str | None,
    count: int,
) -> list[Notice]:
    """The Notification Bot's messages about a move or a (un)resolve."""
    target_topic = new_topic if new_topic is not None else old_topic
    stream_changed = new_stream["id"] != old_stream["id"]
    resolved = unresolved = False
    if new_topic is not None:
        resolved = (
            new_topic.startswith(RESOLVED_TOPIC_PREFIX)
            and not old_topic.startswith(RESOLVED_TOPIC_PREFIX)
            and new_topic[len(RESOLVED_TOPIC_PREFIX) :] == old_topic
        )
        unresolved = (
            old_topic.startswith(RESOLVED_TOPIC_PREFIX)
            and not new_topic.startswith(RESOLVED_TOPIC_PREFIX)
            and old_topic.lstrip(RESOLVED_TOPIC_PREFIX) == new_topic
        )
    notices: list[Notice] = []
    mention = notification_bot.silent_mention(user)
    if resolved or unresolved:
        state = "resolved" if resolved else "unresolved"
        _id, sent = notification_bot.send_to_stream(
            conn,
            user.realm_id,
            new_stream,
            target_topic,
            f"{mention} has marked this topic as {state}.",
            [user.id],
        )
        notices += sent
    if not stream_changed and (resolved or unresolved):
        return notices
    old_location = notification_bot.topic_link(old_stream["name"], old_topic)
    new_location = notification_bot.topic_link(new_stream["name"], target_topic)
    whole_topic = request.propagate_mode == "change_all"
    if request.send_notification_to_new_thread:
        if whole_topic:
            text = f"This topic was moved here from {old_location} by {mention}."
        elif count == 1:
            text = f"A message was moved here from {old_location} by {mention}."
        else:
            text = f"{count} messages were moved here from {old_location} by {mention}."
        notices += notification_bot.send_to_stream(
            conn, user.realm_id, new_stream, target_topic, text, [user.id]
        )[1]
    if request.send_notification_to_old_thread:
        if whole_topic:
            text = f"This topic was moved to {new_location} by {mention}."
        elif count == 1:
            text = f"A message was moved from this topic to {new_location} by {mention}."
        else:
            text = f"{count} messages were moved from this topic to {new_location} by {mention}."
        notices += notification_bot.send_to_stream(
            conn, user.realm_id, old_stream, old_topic, text, [user.id]
        )[1]
    return notices


# --- Deleting -----------------------------------------------------------------------------------


def delete_message(conn: Conn, user: User, message_id: int) -> Outcome[None]:
    """DELETE /messages/{id}: administrators any message; senders their own within the limits."""
    now = time.time()
    row = readable_message(conn, user, message_id)
    if row is None:
        raise ChatError("Invalid message(s)")
    realm = load_realm(conn, user.realm_id)
    if not user.is_admin:
        if row["sender_id"] != user.id:
            raise ChatError("You don't have permission to delete this message")
        if not user.satisfies_policy(realm.setting("delete_own_message_policy"), realm, now):
            raise ChatError("You don't have permission to delete this message")
        if _deadline_passed(
            float(row["date_sent"]), realm.setting("message_content_delete_limit_seconds"), now
        ):
            raise ChatError("The time limit for deleting this message has passed")
    holders = [
        int(u) for u in conn.scalars(sa.select(UM.user_id).where(UM.message_id == message_id))
    ]
    event: dict[str, Any] = {"type": "delete_message", "message_ids": [message_id]}
    if row["stream_id"] is not None:
        event.update(message_type="stream", stream_id=row["stream_id"], topic=row["topic"])
    else:
        event["message_type"] = "private"
    attachment_notices = unlink_message(conn, message_id)
    conn.execute(sa.delete(schema.user_message).where(UM.message_id == message_id))
    delete_reactions_of(conn, [message_id])
    search.unindex_messages(conn, [message_id])
    conn.execute(sa.delete(schema.message).where(M.id == message_id))
    if row["stream_id"] is not None:
        first = conn.scalar(sa.select(sa.func.min(M.id)).where(M.stream_id == row["stream_id"]))
        conn.execute(
            sa.update(schema.stream)
            .where(schema.stream.c.id == row["stream_id"])
            .values(first_message_id=first)
        )
    return Outcome(None, [Notice(event, holders), *attachment_notices])
