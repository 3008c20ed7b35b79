"""Sending messages: addressing, Zulip's content and topic rules, stream policy, delivery rows."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.chat import flags, schema, search
from atrium.chat.actions.attachments import link_attachments
from atrium.chat.actions.missed_messages import queue_missed_messages
from atrium.chat.errors import ChatError, stream_does_not_exist, stream_id_does_not_exist
from atrium.chat.events import Notice, Outcome
from atrium.chat.limits import MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH
from atrium.chat.markdown import RenderContext, RenderResult, render_markdown
from atrium.chat.models import (
    STREAM_POST_ADMINS,
    STREAM_POST_FULL_MEMBERS,
    STREAM_POST_MODERATORS,
    Realm,
    User,
)
from atrium.chat.narrow import huddle_hash
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.alert_words import alerted_users
from atrium.chat.queries.messages import TopicLinks, message_object
from atrium.chat.queries.muted_users import muters_of
from atrium.chat.queries.realm import load_realm
from atrium.chat.rendering import (
    Prerendered,
    group_member_ids,
    prerender_for_write,
    refuse_unrendered,
    render_context,
)
from atrium.core.db import Conn, Database, Prepared

NO_TOPIC = "(no topic)"
TRUNCATED_CONTENT_SUFFIX = "\n[message truncated]"

_INSERT_MESSAGE = Prepared(
    sa.insert(schema.message)
    .values(
        realm_id=sa.bindparam("realm_id"),
        sender_id=sa.bindparam("sender_id"),
        recipient_id=sa.bindparam("recipient_id"),
        stream_id=sa.bindparam("stream_id"),
        topic=sa.bindparam("topic"),
        content=sa.bindparam("content"),
        rendered_content=sa.bindparam("rendered_content"),
        rendered_content_version=1,
        date_sent=sa.bindparam("date_sent"),
        sending_client=sa.bindparam("sending_client"),
        is_me_message=sa.bindparam("is_me_message"),
        has_link=sa.bindparam("has_link"),
        has_image=sa.bindparam("has_image"),
        has_attachment=False,
    )
    .returning(schema.message.c.id)
)
_SET_FIRST_MESSAGE = Prepared(
    sa.update(schema.stream)
    .where(
        schema.stream.c.id == sa.bindparam("stream_id"), schema.stream.c.first_message_id.is_(None)
    )
    .values(first_message_id=sa.bindparam("message_id"))
)


def truncate(text: str, max_length: int, suffix: str) -> str:
    if len(text) <= max_length:
        return text
    return text[: max_length - len(suffix)] + suffix


def normalize_content(content: str) -> str:
    """Zulip's rules: trailing whitespace and leading newlines go; empty and NUL are refused."""
    content = content.rstrip().lstrip("\n")
    if not content:
        raise ChatError("Message must not be empty")
    if "\x00" in content:
        raise ChatError("Message must not contain null bytes")
    return truncate(content, MAX_MESSAGE_LENGTH, TRUNCATED_CONTENT_SUFFIX)


async def prerender_content(db: Database, sender: User, content: str) -> Prerendered | None:
    """The rendering of `content` as the write will store it, made off the event loop before
    the write; None when the write will refuse the content or renders it itself."""
    try:
        normalized = normalize_content(content)
    except ChatError:  # refused by the write, in the order of its checks
        return None
    return await prerender_for_write(db, sender, normalized)


def normalize_topic(topic: str | None, realm: Realm) -> str:
    if topic is None:
        raise ChatError("Missing topic")
    topic = topic.strip()
    if "\x00" in topic:
        raise ChatError("Topic must not contain null bytes")
    if any(ord(ch) < 32 for ch in topic):
        topic = "".join(" " if ord(ch) < 32 else ch for ch in topic)
    if not topic:
        if realm.setting("mandatory_topics"):
            raise ChatError("Topics are required in this organization")
        return NO_TOPIC
    return truncate(topic, MAX_TOPIC_LENGTH, "...")


@dataclass(frozen=True)
class Address:
    """Where a message goes: a stream, or the set of DM participants (sender included)."""

    stream: Any = None
    dm_user_ids: tuple[int, ...] = ()


def _stream_target(raw: Any) -> int | str:
    """`to` for a stream message: a stream id, or a name (plain or JSON-encoded)."""
    if isinstance(raw, list):
        if len(raw) != 1:
            raise ChatError("Invalid stream name")
        raw = raw[0]
    if isinstance(raw, bool):
        raise ChatError("Invalid stream name")
    if isinstance(raw, int):
        return raw
    return str(raw)


def find_stream(conn: Conn, sender: User, target: int | str) -> Any:
    """The stream a message is addressed to, or Zulip's error naming the target."""
    if isinstance(target, int):
        stream = stream_queries.stream_by_id(conn, sender.realm_id, target)
        if stream is None:
            raise stream_id_does_not_exist(target)
    else:
        stream = stream_queries.stream_by_name(conn, sender.realm_id, target)
        if stream is None:
            raise stream_does_not_exist(target)
    return stream


def check_can_post(
    conn: Conn,
    sender: User,
    realm: Realm,
    stream: Any,
    subscribed: bool | None = None,
    *,
    named: bool = False,
) -> None:
    """Refuse a post the stream's privacy or posting policy forbids. `subscribed`: whether the
    sender is, when the caller already knows (it has read the subscribers); `named`: whether
    the sender gave the stream's name (rather than its id).

    The refusal names the stream only to a sender who may see it or who named it: to anyone
    else a stream addressed by id is as unknown as an id with no stream, so that walking ids
    reveals neither names nor which ids exist.
    """
    if subscribed is None:
        subscribed = stream_queries.active_subscription(conn, sender.id, stream["id"]) is not None
    if not subscribed and sender.is_bot and sender.bot_owner_id is not None:
        # A bot may post where its owner is subscribed, as in Zulip.
        subscribed = (
            stream_queries.active_subscription(conn, sender.bot_owner_id, stream["id"]) is not None
        )
    if not subscribed and (stream["invite_only"] or sender.is_guest):
        if not named and not stream_queries.can_see_stream(sender, stream, subscribed):
            raise stream_id_does_not_exist(stream["id"])
        raise ChatError(f"Not authorized to send to stream '{stream['name']}'")
    policy = stream["stream_post_policy"]
    if policy == STREAM_POST_ADMINS and not sender.is_admin:
        raise ChatError("Only organization administrators can send to this stream.")
    if policy == STREAM_POST_MODERATORS and not sender.is_moderator:
        raise ChatError("Only organization administrators and moderators can send to this stream.")
    if policy == STREAM_POST_FULL_MEMBERS and not (
        sender.is_moderator or sender.is_full_member(realm, time.time())
    ):
        raise ChatError("New members cannot send to this stream.")


def resolve_dm_recipients(conn: Conn, sender: User, realm: Realm, raw: Any) -> tuple[int, ...]:
    if isinstance(raw, str):
        items: list[Any] = [e.strip() for e in raw.split(",") if e.strip()]
    elif isinstance(raw, int) and not isinstance(raw, bool):
        items = [raw]
    elif isinstance(raw, list):
        items = raw
    else:
        raise ChatError("Invalid user ID")
    if not items:
        raise ChatError("Message must have recipients")
    kinds = {type(item) for item in items}
    if kinds - {int, str} or bool in kinds:
        raise ChatError("Recipient lists may contain emails or user IDs, but not both.")
    if len(kinds) > 1:
        raise ChatError("Recipient lists may contain emails or user IDs, but not both.")
    U = schema.user.c
    user_ids: list[int] = []
    for item in items:
        if isinstance(item, int):
            row = conn.one(
                sa.select(U.id, U.email, U.is_active, U.is_bot).where(
                    U.id == item, U.realm_id == sender.realm_id
                )
            )
            if row is None:
                raise ChatError(f"Invalid user ID {item}")
        else:
            row = conn.one(
                sa.select(U.id, U.email, U.is_active, U.is_bot).where(
                    U.realm_id == sender.realm_id, sa.func.lower(U.email) == item.lower()
                )
            )
            if row is None:
                raise ChatError(f"Invalid email '{item}'")
        if not row["is_active"]:
            raise ChatError(f"'{row['email']}' is no longer using Zulip.")
        user_ids.append(row["id"])
    participants = tuple(sorted(set(user_ids) | {sender.id}))
    if realm.setting("private_message_policy") == 2 and len(participants) > 1:
        # Disabled DMs still allow writing to yourself and to bots.
        others = [u for u in participants if u != sender.id]
        bots = set(conn.scalars(sa.select(U.id).where(U.id.in_(others), U.is_bot.is_(True))))
        if set(others) - bots:
            raise ChatError("Direct messages are disabled in this organization.")
    return participants


def dm_recipient_id(conn: Conn, sender: User, participants: tuple[int, ...]) -> int:
    """Zulip's addressing: a 1:1 DM goes to the other user's personal recipient, a group DM to a huddle."""
    U = schema.user.c
    if len(participants) <= 2:
        other = next((u for u in participants if u != sender.id), sender.id)
        return int(conn.scalar(sa.select(U.recipient_id).where(U.id == other)))
    digest = huddle_hash(participants)
    existing = conn.scalar(
        sa.select(schema.huddle.c.recipient_id).where(schema.huddle.c.huddle_hash == digest)
    )
    if existing is not None:
        return int(existing)
    huddle_id = conn.scalar(
        sa.insert(schema.huddle).values(huddle_hash=digest).returning(schema.huddle.c.id)
    )
    recipient_id = conn.scalar(
        sa.insert(schema.recipient)
        .values(type=schema.RECIPIENT_HUDDLE, type_id=huddle_id)
        .returning(schema.recipient.c.id)
    )
    conn.execute(
        sa.update(schema.huddle)
        .where(schema.huddle.c.id == huddle_id)
        .values(recipient_id=recipient_id)
    )
    conn.executemany(
        sa.insert(schema.huddle_member).values(
            huddle_id=sa.bindparam("huddle_id"), user_id=sa.bindparam("user_id")
        ),
        [{"huddle_id": huddle_id, "user_id": u} for u in participants],
    )
    return int(recipient_id)


@dataclass(frozen=True)
class SendRequest:
    type: str
    to: Any
    content: str
    topic: str | None
    client: str
    # (queue_id, local_id) of a client doing local echo: its queue gets `local_message_id`.
    echo: tuple[str, str] | None = None
    # The content's rendering, made before the write off the event loop (`prerender`).
    prerendered: Prerendered | None = None


def _render(
    conn: Conn, sender: User, content: str, emoticons: bool, prerendered: Prerendered | None
) -> tuple[RenderContext, RenderResult]:
    if prerendered is not None and prerendered.matches(sender.id, content):
        return prerendered.context, refuse_unrendered(prerendered.result)
    context = render_context(conn, sender.realm_id, sender.id, content, emoticons)
    return context, refuse_unrendered(render_markdown(content, context))


def send_message(conn: Conn, sender: User, request: SendRequest) -> Outcome[int]:
    """Validate, render and store one message with a delivery row per recipient; its id."""
    if request.type not in {"stream", "direct", "private"}:
        raise ChatError("Invalid message type")
    realm = load_realm(conn, sender.realm_id)
    now = time.time()
    profile = conn.one(_SENDER_PROFILE, {"id": sender.id})
    assert profile is not None
    emoticons = bool(profile["translate_emoticons"])
    if request.type == "stream":
        target = _stream_target(request.to)
        stream = find_stream(conn, sender, target)
        receivers = stream_queries.subscriber_ids(conn, stream["id"])
        check_can_post(
            conn,
            sender,
            realm,
            stream,
            subscribed=sender.id in receivers,
            named=isinstance(target, str),
        )
        topic = normalize_topic(request.topic, realm)
        content = normalize_content(request.content)
        recipient_id = stream["recipient_id"]
        context, rendered = _render(conn, sender, content, emoticons, request.prerendered)
        if rendered.stream_wildcard_mentioned or rendered.topic_wildcard_mentioned:
            check_wildcard_mention(sender, realm, len(receivers))
        base_flags = 0
        stream_id = stream["id"]
    else:
        participants = resolve_dm_recipients(conn, sender, realm, request.to)
        content = normalize_content(request.content)
        topic = ""
        recipient_id = dm_recipient_id(conn, sender, participants)
        receivers = list(participants)
        context, rendered = _render(conn, sender, content, emoticons, request.prerendered)
        base_flags = flags.IS_PRIVATE
        stream_id = None
    fields = {
        "realm_id": sender.realm_id,
        "sender_id": sender.id,
        "recipient_id": recipient_id,
        "stream_id": stream_id,
        "topic": topic,
        "content": content,
        "rendered_content": rendered.html,
        "date_sent": now,
        "sending_client": request.client,
        "is_me_message": rendered.is_me_message,
        "has_link": "<a " in rendered.html,
        "has_image": "<img " in rendered.html,
    }
    message_id: int = conn.scalar(_INSERT_MESSAGE, fields)
    search.index_new_message(conn, message_id, topic, content)
    mentioned = rendered.mentioned_user_ids | group_member_ids(conn, rendered.mentioned_group_ids)
    wildcard = rendered.stream_wildcard_mentioned or rendered.topic_wildcard_mentioned
    everyone = set(receivers) | {sender.id}
    # Muters get the message already read; alert words set their flag (Zulip 7).
    muters = muters_of(conn, sender.id) & everyone
    alerted = alerted_users(conn, sender.realm_id, everyone - {sender.id}, content)
    by_flags: dict[int, list[int]] = {}
    for uid in everyone:
        bits = delivery_flags(uid, sender.id, mentioned, wildcard, base_flags)
        if uid in muters:
            bits |= flags.READ
        if uid in alerted:
            bits |= flags.BIT["has_alert_word"]
        by_flags.setdefault(bits, []).append(uid)
    conn.insert_tuples(
        schema.user_message,
        ("user_id", "message_id", "flags"),
        [(uid, message_id, bits) for bits, uids in by_flags.items() for uid in uids],
    )
    held = queue_missed_messages(
        conn,
        message_id,
        sender.id,
        stream_id,
        receivers if stream_id is None else (),
        mentioned & everyone,
        alerted,
        muters,
        now,
        everyone if wildcard and stream_id is not None else (),
        topic,
        bool(realm.row.get("presence_disabled")),
    )
    if stream_id is not None and stream["first_message_id"] is None:
        conn.execute(_SET_FIRST_MESSAGE, {"stream_id": stream_id, "message_id": message_id})
    display = stream["name"] if stream_id is not None else dm_display_recipient(conn, receivers)
    topic_links = TopicLinks(context.linkifiers).of(fields)
    payload = new_message_payload(
        conn, realm, sender, {**fields, "id": message_id}, display, topic_links, profile
    )
    notices = message_notices(sender, payload, by_flags, request.echo)
    if "/user_uploads/" in content:
        notices += link_attachments(conn, sender, message_id, content)
    return Outcome(message_id, notices, {message_id: held} if held else {})


_SENDER_PROFILE = Prepared(
    sa.select(
        schema.user.c.id,
        schema.user.c.email,
        schema.user.c.full_name,
        schema.user.c.avatar_source,
        schema.user.c.avatar_version,
        schema.user.c.realm_id,
        schema.user.c.translate_emoticons,
    ).where(schema.user.c.id == sa.bindparam("id"))
)


def dm_display_recipient(conn: Conn, participants: list[int]) -> list[dict[str, Any]]:
    U = schema.user.c
    rows = conn.all(
        sa.select(U.id, U.email, U.full_name).where(U.id.in_(participants)).order_by(U.id)
    )
    return [
        {"id": r["id"], "email": r["email"], "full_name": r["full_name"], "is_mirror_dummy": False}
        for r in rows
    ]


def new_message_payload(
    conn: Conn,
    realm: Realm,
    sender: User,
    row: dict[str, Any],
    display_recipient: Any,
    topic_links: list[dict[str, str]],
    sender_row: Any,
) -> dict[str, Any]:
    """The `message` event's message, from the values just stored (no read-back).

    It carries `raw_content` and `avatar_is_gravatar` for each queue to shape as its client
    asked (apply_markdown, client_gravatar); `shape_event` removes both. `sender_row`: the
    sender's `_SENDER_PROFILE`, as the send read it.
    """
    message = message_object(
        {**row, "last_edit_time": None, "edit_history": None},
        sender_row,
        realm.string_id,
        display_recipient,
        [],
        topic_links,
        apply_markdown=True,
        client_gravatar=False,
    )
    del message["flags"]
    message["raw_content"] = row["content"]
    message["avatar_is_gravatar"] = sender_row["avatar_source"] == "G"
    return message


def message_notices(
    sender: User,
    message: dict[str, Any],
    by_flags: dict[int, list[int]],
    echo: tuple[str, str] | None,
) -> list[Notice]:
    """One `message` event per distinct set of personal flags, as Zulip sends them."""
    notices = []
    for bits, uids in by_flags.items():
        for_queue = {}
        if echo is not None and sender.id in uids:
            for_queue[echo[0]] = {"local_message_id": echo[1]}
        event = {"type": "message", "message": message, "flags": flags.flags_list(bits)}
        notices.append(Notice(event, uids, for_queue))
    return notices


def delivery_flags(
    user_id: int, sender_id: int, mentioned: set[int], wildcard: bool, base: int
) -> int:
    bits = base
    if user_id == sender_id:
        bits |= flags.READ
    if user_id in mentioned:
        bits |= flags.MENTIONED
    if wildcard:
        # Feature level 185 has one wildcard flag (split in two at 224).
        bits |= flags.STREAM_WILDCARD_MENTIONED
    return bits


# wildcard_mention_policy has codes of its own (not the common policy codes).
WILDCARD_POLICY_EVERYONE = 1
WILDCARD_POLICY_MEMBERS = 2
WILDCARD_POLICY_FULL_MEMBERS = 3
WILDCARD_POLICY_ADMINS = 5
WILDCARD_POLICY_NOBODY = 6
WILDCARD_POLICY_MODERATORS = 7
# Below this many subscribers, anyone may use a wildcard mention.
WILDCARD_MENTION_THRESHOLD = 15


def check_wildcard_mention(sender: User, realm: Realm, subscriber_count: int) -> None:
    if subscriber_count <= WILDCARD_MENTION_THRESHOLD:
        return
    policy = realm.setting("wildcard_mention_policy")
    allowed = {
        WILDCARD_POLICY_EVERYONE: True,
        WILDCARD_POLICY_MEMBERS: not sender.is_guest,
        WILDCARD_POLICY_FULL_MEMBERS: sender.is_moderator
        or sender.is_full_member(realm, time.time()),
        WILDCARD_POLICY_ADMINS: sender.is_admin,
        WILDCARD_POLICY_NOBODY: False,
        WILDCARD_POLICY_MODERATORS: sender.is_moderator,
    }.get(policy, sender.is_admin)
    if not allowed:
        raise ChatError("You do not have permission to use wildcard mentions in this stream.")
