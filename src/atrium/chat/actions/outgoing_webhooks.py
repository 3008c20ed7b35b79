"""What an outgoing webhook's answer does: the bot's reply in the conversation, and a failure
told to the conversation and to the bot's owner (Zulip's send_response_message,
fail_with_message and notify_bot_owner)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.messages import SendRequest, send_message
from atrium.chat.actions.notification_bot import send_direct
from atrium.chat.events import Outcome
from atrium.chat.models import User
from atrium.chat.rendering import Prerendered
from atrium.core.db import Conn

U = schema.user.c
# The client name of the messages bots send through their webhook's answer.
REPLY_CLIENT = "OutgoingWebhookResponse"


def active_bot(conn: Conn, bot_id: int) -> User | None:
    row = conn.one(sa.select(schema.user).where(U.id == bot_id, U.is_active.is_(True)))
    return None if row is None else User.from_row(row)


def send_bot_reply(
    conn: Conn,
    bot_id: int,
    message: dict[str, Any],
    content: str,
    prerendered: Prerendered | None = None,
) -> Outcome[int | None]:
    """The bot answers where the message was: its stream and topic, or the same direct-message
    conversation. Nothing if the bot was deactivated in the meantime. `prerendered`: the
    reply's rendering, made before this write (`prerender_content`)."""
    bot = active_bot(conn, bot_id)
    if bot is None:
        return Outcome(None)
    if message["type"] == "stream":
        request = SendRequest(
            "stream",
            message["stream_id"],
            content,
            message["subject"],
            REPLY_CLIENT,
            prerendered=prerendered,
        )
    else:
        to = [r["id"] for r in message["display_recipient"] if r["id"] != bot.id] or [bot.id]
        request = SendRequest("private", to, content, None, REPLY_CLIENT, prerendered=prerendered)
    sent = send_message(conn, bot, request)
    return Outcome(sent.value, sent.notices, sent.held_mail)


def report_failure(
    conn: Conn, bot_id: int, message: dict[str, Any], failure: str, detail: str
) -> Outcome[None]:
    """`Failure! …` from the bot in the conversation, and the details to the bot's owner from the
    Notification Bot."""
    bot = active_bot(conn, bot_id)
    if bot is None:
        return Outcome(None)
    reply = send_bot_reply(conn, bot_id, message, f"Failure! {failure}")
    notices = list(reply.notices)
    owner_id = conn.scalar(sa.select(U.bot_owner_id).where(U.id == bot_id))
    if owner_id is not None:
        text = (
            f"[A message](/#narrow/id/{message['id']}) to your bot @_**{bot.full_name}** "
            f"triggered an outgoing webhook.\n{detail}"
        )
        notices += send_direct(conn, bot.realm_id, int(owner_id), text)
    return Outcome(None, notices, reply.held_mail)
