"""POST /typing: `typing` start/stop events, to the people of the conversation.

Nothing is stored: the check reads the database and the events are published (ChatRuntime.announce).
A direct message's notice goes to all its participants (the sender too, as Zulip does); a
stream topic's to the stream's other subscribers, when the typist may post there.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.users import user_row
from atrium.core.db import Conn

U = schema.user.c


def typing_notice(
    conn: Conn, sender: User, op: str, kind: str, to: list[int] | None, topic: str | None
) -> Outcome[None]:
    row = user_row(conn, sender.realm_id, sender.id)
    person = {"user_id": sender.id, "email": sender.email}
    if kind == "stream":
        if not row["send_stream_typing_notifications"]:
            raise ChatError("User has disabled typing notifications for stream messages")
        if not to or len(to) != 1:
            raise ChatError("Invalid 'to' argument for stream typing")
        if topic is None:
            raise ChatError("Missing topic")
        stream, _sub = stream_queries.stream_for_reading(
            conn, sender, to[0], allow_realm_admin=False
        )
        event: dict[str, Any] = {
            "type": "typing",
            "op": op,
            "message_type": "stream",
            "sender": person,
            "stream_id": stream["id"],
            "topic": topic,
        }
        audience = [u for u in stream_queries.subscriber_ids(conn, stream["id"]) if u != sender.id]
        return Outcome(None, [Notice(event, audience)])
    if not row["send_private_typing_notifications"]:
        raise ChatError("User has disabled typing notifications for direct messages")
    if not to:
        raise ChatError("Empty 'to' list")
    wanted = sorted({*to, sender.id})
    users = {
        r["id"]: r
        for r in conn.all(
            sa.select(U.id, U.email, U.is_active, U.is_bot).where(
                U.id.in_(wanted), U.realm_id == sender.realm_id
            )
        )
    }
    for user_id in wanted:
        if user_id not in users:
            raise ChatError(f"Invalid user ID {user_id}")
    event = {
        "type": "typing",
        "op": op,
        "message_type": "private",
        "sender": person,
        "recipients": [{"user_id": u, "email": users[u]["email"]} for u in wanted],
    }
    # Bots get no typing notices (Zulip's receives_typing_notifications), nor do former users.
    audience = [u for u in wanted if users[u]["is_active"] and not users[u]["is_bot"]]
    return Outcome(None, [Notice(event, audience)])
