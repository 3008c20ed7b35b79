"""Which outgoing-webhook bots a new message triggers, and what each is sent about it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import BOT_OUTGOING_WEBHOOK, User
from atrium.chat.queries.messages import message_dicts
from atrium.core.db import Conn

U = schema.user.c
M = schema.message.c
UM = schema.user_message.c
SV = schema.bot_service.c

# A mention that notifies (a silent one, `@_**name**`, carries the `silent` class too).
_MENTION = re.compile(r'<span class="user-mention" data-user-id="(\d+)"')


@dataclass(frozen=True)
class Trigger:
    bot_id: int
    bot_email: str
    bot_full_name: str
    base_url: str
    interface: int
    token: str
    # "mention" for a stream message that mentions the bot, "private_message" for a direct
    # message it receives (the names of feature level 185).
    trigger: str
    message: dict[str, Any]
    realm_str: str


def triggered_bots(conn: Conn, message_id: int) -> list[Trigger]:
    """The active outgoing-webhook bots the message triggers, as Zulip's get_service_bot_events
    decides: never for a message a bot sent (no bot loops)."""
    msg = conn.one(sa.select(schema.message).where(M.id == message_id))
    if msg is None:
        return []
    if conn.scalar(sa.select(U.is_bot).where(U.id == msg["sender_id"])):
        return []
    bots = conn.all(
        sa.select(schema.user, SV.base_url, SV.interface, SV.token)
        .join(schema.bot_service, SV.user_id == U.id)
        .where(
            U.realm_id == msg["realm_id"],
            U.bot_type == BOT_OUTGOING_WEBHOOK,
            U.is_active.is_(True),
        )
        .order_by(U.id, SV.id)
    )
    if not bots:
        return []
    received = set(
        conn.scalars(
            sa.select(UM.user_id).where(
                UM.message_id == message_id, UM.user_id.in_([b["id"] for b in bots])
            )
        )
    )
    if msg["stream_id"] is not None:
        mentioned = {int(m) for m in _MENTION.findall(msg["rendered_content"])}
        # A mention reaches a bot outside a public stream; a private stream's messages go only
        # to bots subscribed to it (received the message), never leaked to others by a mention.
        public = not conn.scalar(
            sa.select(schema.stream.c.invite_only).where(schema.stream.c.id == msg["stream_id"])
        )
        chosen = [
            (b, "mention") for b in bots if b["id"] in mentioned and (public or b["id"] in received)
        ]
    else:
        chosen = [(b, "private_message") for b in bots if b["id"] in received]
    realm_str = str(
        conn.scalar(sa.select(schema.realm.c.string_id).where(schema.realm.c.id == msg["realm_id"]))
    )
    triggers = []
    for bot, trigger in chosen:
        triggers.append(
            Trigger(
                bot_id=int(bot["id"]),
                bot_email=bot["email"],
                bot_full_name=bot["full_name"],
                base_url=bot["base_url"],
                interface=int(bot["interface"]),
                token=bot["token"],
                trigger=trigger,
                message=_message_as_seen_by(conn, User.from_row(bot), message_id),
                realm_str=realm_str,
            )
        )
    return triggers


def _message_as_seen_by(conn: Conn, bot: User, message_id: int) -> dict[str, Any]:
    """The message in GET /messages' format, with its Markdown `content` and its
    `rendered_content` (the outgoing webhook payload's `message`), without reader flags."""
    row = conn.one(
        sa.select(*schema.message.c, UM.flags.label("user_flags"))
        .select_from(
            schema.message.outerjoin(
                schema.user_message, sa.and_(UM.message_id == M.id, UM.user_id == bot.id)
            )
        )
        .where(M.id == message_id)
    )
    assert row is not None  # the caller read the message in this transaction
    (message,) = message_dicts(conn, bot, [row], apply_markdown=False, client_gravatar=False)
    message.pop("flags", None)
    message["rendered_content"] = row["rendered_content"]
    return message
