"""Emoji reactions: POST and DELETE /messages/{id}/reactions, and their `reaction` events.

A reaction bumps its message's `reaction_version`, so that every worker's cached message object
(chat.queries.message_cache) is rebuilt with the new reactions. The event goes to everyone who
received the message, and to the subscribers of a stream whose history they can read.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.emoji_choice import check_emoji, code_for_name
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.narrow import HISTORICAL_FLAGS
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.emoji import realm_emoji_dicts
from atrium.chat.queries.messages import readable_message
from atrium.core.db import Conn

R = schema.reaction.c
M = schema.message.c
UM = schema.user_message.c


def custom_emoji(conn: Conn, realm_id: int) -> dict[str, str]:
    """The realm's active custom emoji a reaction or status may name: id (a string) -> name."""
    return {
        emoji_id: emoji["name"]
        for emoji_id, emoji in realm_emoji_dicts(conn, realm_id).items()
        if not emoji["deactivated"]
    }


def _message(conn: Conn, user: User, message_id: int) -> Any:
    row = readable_message(conn, user, message_id)
    if row is None:
        raise ChatError("Invalid message(s)")
    return row


def reaction_audience(conn: Conn, message: Any) -> list[int]:
    """Who hears of a change to a message: its recipients, and the subscribers who may read it
    through the stream's public history."""
    holders = set(conn.scalars(sa.select(UM.user_id).where(UM.message_id == message["id"])))
    if message["stream_id"] is not None:
        stream = stream_queries.stream_by_id(conn, message["realm_id"], message["stream_id"])
        if stream is not None and stream["history_public_to_subscribers"]:
            holders.update(stream_queries.subscriber_ids(conn, message["stream_id"]))
    return sorted(holders)


def _event(op: str, user: User, message_id: int, name: str, code: str, kind: str) -> dict[str, Any]:
    return {
        "type": "reaction",
        "op": op,
        "message_id": message_id,
        "emoji_name": name,
        "emoji_code": code,
        "reaction_type": kind,
        "user_id": user.id,
        "user": {"user_id": user.id, "email": user.email, "full_name": user.full_name},
    }


def _bump(conn: Conn, message_id: int) -> None:
    conn.execute(
        sa.update(schema.message)
        .where(M.id == message_id)
        .values(reaction_version=M.reaction_version + 1)
    )


def add_reaction(
    conn: Conn,
    user: User,
    message_id: int,
    emoji_name: str,
    emoji_code: str | None,
    reaction_type: str | None,
) -> Outcome[None]:
    message = _message(conn, user, message_id)
    if emoji_code is None:
        emoji_code, reaction_type = code_for_name(emoji_name, custom_emoji(conn, user.realm_id))
    kind = reaction_type or schema.REACTION_UNICODE
    same = sa.and_(R.message_id == message_id, R.emoji_code == emoji_code, R.reaction_type == kind)
    if conn.scalar(sa.select(R.id).where(same, R.user_id == user.id)) is not None:
        raise ChatError("Reaction already exists.")
    existing_name = conn.scalar(sa.select(R.emoji_name).where(same).order_by(R.id).limit(1))
    if existing_name is not None:
        # Joining someone else's reaction: theirs is the name everyone sees (Zulip does the same).
        emoji_name = existing_name
    else:
        check_emoji(emoji_name, emoji_code, kind, custom_emoji(conn, user.realm_id))
    if message["user_flags"] is None:
        # Reacting to a message of a stream's history makes it the reader's, as in Zulip.
        conn.execute(
            sa.insert(schema.user_message).values(
                user_id=user.id, message_id=message_id, flags=HISTORICAL_FLAGS
            )
        )
    conn.execute(
        sa.insert(schema.reaction).values(
            message_id=message_id,
            user_id=user.id,
            emoji_name=emoji_name,
            emoji_code=emoji_code,
            reaction_type=kind,
        )
    )
    _bump(conn, message_id)
    event = _event("add", user, message_id, emoji_name, emoji_code, kind)
    return Outcome(None, [Notice(event, reaction_audience(conn, message))])


def remove_reaction(
    conn: Conn,
    user: User,
    message_id: int,
    emoji_name: str | None,
    emoji_code: str | None,
    reaction_type: str | None,
) -> Outcome[None]:
    message = _message(conn, user, message_id)
    if emoji_code is None:
        if emoji_name is None:
            raise ChatError(
                "At least one of the following arguments must be present: emoji_name, emoji_code"
            )
        emoji_code, reaction_type = code_for_name(emoji_name, custom_emoji(conn, user.realm_id))
    kind = reaction_type or schema.REACTION_UNICODE
    mine = sa.and_(
        R.message_id == message_id,
        R.user_id == user.id,
        R.emoji_code == emoji_code,
        R.reaction_type == kind,
    )
    row = conn.one(sa.select(R.id, R.emoji_name).where(mine))
    if row is None:
        raise ChatError("Reaction doesn't exist.")
    conn.execute(sa.delete(schema.reaction).where(R.id == row["id"]))
    _bump(conn, message_id)
    event = _event("remove", user, message_id, row["emoji_name"], emoji_code, kind)
    return Outcome(None, [Notice(event, reaction_audience(conn, message))])


def delete_reactions_of(conn: Conn, message_ids: list[int]) -> None:
    """A deleted message's reactions go with it."""
    if message_ids:
        conn.execute(sa.delete(schema.reaction).where(R.message_id.in_(message_ids)))
