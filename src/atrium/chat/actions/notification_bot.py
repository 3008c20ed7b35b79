"""The Notification Bot and the messages the server itself posts (move, resolve, failed delivery).

Zulip's Notification Bot is a cross-realm system bot: it belongs to the internal realm
`zulipinternal`, not to the organization, so it is never listed among the organization's users.
Atrium does the same, creating the internal realm and the bot the first time one is needed.
Messages it posts skip the permission checks of a user's send (the server is acting), and are
marked as read for the user whose action caused them, as Zulip does.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa

from atrium.chat import flags, schema, search
from atrium.chat.actions.messages import delivery_flags
from atrium.chat.actions.reactions import delete_reactions_of
from atrium.chat.actions.realm import create_realm
from atrium.chat.actions.users import NewUser, create_user
from atrium.chat.events import Notice
from atrium.chat.markdown import render_markdown
from atrium.chat.models import BOT_DEFAULT, User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.messages import message_payload
from atrium.chat.queries.system_bots import NOTIFICATION_BOT_EMAIL, SYSTEM_BOTS
from atrium.chat.rendering import group_member_ids, render_context
from atrium.core.db import Conn

INTERNAL_REALM = "zulipinternal"

U = schema.user.c
M = schema.message.c


def notification_bot(conn: Conn) -> User:
    """The bot, created with its internal realm on first use."""
    return system_bot(conn, NOTIFICATION_BOT_EMAIL)


def system_bot(conn: Conn, email: str) -> User:
    """One of the server's own bots, created with their internal realm on first use."""
    row = conn.one(sa.select(schema.user).where(U.email == email))
    if row is None:
        realm_id = conn.scalar(
            sa.select(schema.realm.c.id).where(schema.realm.c.string_id == INTERNAL_REALM)
        )
        if realm_id is None:
            realm_id = create_realm(conn, "System bot realm", INTERNAL_REALM)
        bot_id = create_user(
            conn,
            int(realm_id),
            NewUser(email, SYSTEM_BOTS[email], bot_type=BOT_DEFAULT),
        )
        row = conn.one(sa.select(schema.user).where(U.id == bot_id))
    return User.from_row(row)


def silent_mention(user: User) -> str:
    return f"@_**{user.full_name}|{user.id}**"


def topic_link(stream_name: str, topic: str) -> str:
    return f"#**{stream_name}>{topic}**"


def _store(
    conn: Conn,
    bot: User,
    realm_id: int,
    recipient_id: int,
    stream_id: int | None,
    topic: str,
    content: str,
    receivers: Iterable[int],
    read_by: Iterable[int],
    base_flags: int,
) -> tuple[int, list[Notice]]:
    rendered = render_markdown(content, render_context(conn, realm_id, bot.id, content))
    message_id: int = conn.scalar(
        sa.insert(schema.message)
        .values(
            realm_id=realm_id,
            sender_id=bot.id,
            recipient_id=recipient_id,
            stream_id=stream_id,
            topic=topic,
            content=content,
            rendered_content=rendered.html,
            rendered_content_version=1,
            date_sent=time.time(),
            sending_client="Internal",
            is_me_message=False,
            has_link="<a " in rendered.html,
            has_image="<img " in rendered.html,
            has_attachment=False,
        )
        .returning(schema.message.c.id)
    )
    search.index_new_message(conn, message_id, topic, content)
    mentioned = rendered.mentioned_user_ids | group_member_ids(conn, rendered.mentioned_group_ids)
    wildcard = rendered.stream_wildcard_mentioned or rendered.topic_wildcard_mentioned
    readers = set(read_by)
    by_flags: dict[int, list[int]] = {}
    for uid in set(receivers):
        bits = delivery_flags(uid, bot.id, mentioned, wildcard, base_flags)
        if uid in readers:
            bits |= flags.READ
        by_flags.setdefault(bits, []).append(uid)
    conn.executemany(
        sa.insert(schema.user_message).values(
            user_id=sa.bindparam("user_id"),
            message_id=sa.bindparam("message_id"),
            flags=sa.bindparam("flags"),
        ),
        [
            {"user_id": uid, "message_id": message_id, "flags": bits}
            for bits, uids in by_flags.items()
            for uid in uids
        ],
    )
    if stream_id is not None:
        conn.execute(
            sa.update(schema.stream)
            .where(schema.stream.c.id == stream_id, schema.stream.c.first_message_id.is_(None))
            .values(first_message_id=message_id)
        )
    payload = message_payload(conn, bot, message_id)
    notices = [
        Notice({"type": "message", "message": payload, "flags": flags.flags_list(bits)}, uids)
        for bits, uids in by_flags.items()
    ]
    return message_id, notices


def send_to_stream(
    conn: Conn, realm_id: int, stream: Any, topic: str, content: str, read_by: Iterable[int]
) -> tuple[int, list[Notice]]:
    """Post as the Notification Bot to a stream's topic; (message id, its events)."""
    bot = notification_bot(conn)
    receivers = stream_queries.subscriber_ids(conn, stream["id"])
    return _store(
        conn,
        bot,
        realm_id,
        stream["recipient_id"],
        stream["id"],
        topic,
        content,
        receivers,
        read_by,
        0,
    )


def send_direct(
    conn: Conn, realm_id: int, to_user_id: int, content: str, bot: User | None = None
) -> list[Notice]:
    """A direct message from the Notification Bot (or another system bot) to one user; its
    events."""
    return send_direct_message(conn, realm_id, to_user_id, content, bot)[1]


def send_direct_message(
    conn: Conn, realm_id: int, to_user_id: int, content: str, bot: User | None = None
) -> tuple[int, list[Notice]]:
    """`send_direct`, also answering the message's id (for a sender that may withdraw it)."""
    bot = bot or notification_bot(conn)
    recipient_id = conn.scalar(sa.select(U.recipient_id).where(U.id == to_user_id))
    return _store(
        conn,
        bot,
        realm_id,
        int(recipient_id),
        None,
        "",
        content,
        [to_user_id],
        [],
        flags.IS_PRIVATE,
    )


def withdraw(conn: Conn, message_id: int) -> list[Notice]:
    """Delete a message the Notification Bot posted, as an administrator's delete would: the
    server takes back what it said (what the message showed was hidden at its source). A message
    that is gone, or not the bot's, is left alone."""
    bot = notification_bot(conn)
    row = conn.one(sa.select(M.id, M.sender_id, M.stream_id, M.topic).where(M.id == message_id))
    if row is None or row["sender_id"] != bot.id:
        return []
    holders = [
        int(u)
        for u in conn.scalars(
            sa.select(schema.user_message.c.user_id).where(
                schema.user_message.c.message_id == message_id
            )
        )
    ]
    event: dict[str, Any] = {"type": "delete_message", "message_ids": [message_id]}
    if row["stream_id"] is not None:
        event.update(message_type="stream", stream_id=row["stream_id"], topic=row["topic"])
    else:
        event["message_type"] = "private"
    conn.execute(
        sa.delete(schema.user_message).where(schema.user_message.c.message_id == message_id)
    )
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
    return [Notice(event, holders)]
