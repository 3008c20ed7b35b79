"""Welcome Bot's first direct message to a new person, as Zulip sends one to every new human
user: what organization they joined, the streams they start in, and where to go next."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.notification_bot import send_direct, system_bot
from atrium.chat.actions.users import NewUser, add_user
from atrium.chat.events import Notice, Outcome
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.system_bots import WELCOME_BOT_EMAIL
from atrium.core.db import Conn


def _stream_names(conn: Conn, user_id: int) -> list[str]:
    S, SUB = schema.stream.c, schema.subscription.c
    return list(
        conn.scalars(
            sa.select(S.name)
            .join(schema.subscription, SUB.stream_id == S.id)
            .where(SUB.user_id == user_id, SUB.active.is_(True), S.deactivated.is_(False))
            .order_by(S.name)
        )
    )


def welcome_text(realm_name: str, streams: list[str]) -> str:
    if streams:
        where = "You are already in " + ", ".join(f"#**{name}**" for name in streams) + "."
    else:
        where = "You are not in any stream yet."
    return (
        f"Hello, and welcome to {realm_name}! :wave:\n\n"
        f"{where} Conversations in a stream are grouped by topic; reply in a topic to keep "
        "its thread together.\n\n"
        "* Find and join more streams with the **+** next to *Streams* in the left sidebar.\n"
        "* Press `?` to see the keyboard shortcuts.\n"
        "* Set your name, avatar and notifications under the ⚙ settings."
    )


def welcome_new_user(conn: Conn, realm_id: int, user_id: int) -> list[Notice]:
    """The welcome message to a user just created; its events."""
    realm = load_realm(conn, realm_id)
    bot = system_bot(conn, WELCOME_BOT_EMAIL)
    text = welcome_text(realm.name, _stream_names(conn, user_id))
    return send_direct(conn, realm_id, user_id, text, bot)


def add_welcomed_user(conn: Conn, realm_id: int, new: NewUser) -> Outcome[int]:
    """POST /users: the new account, then Welcome Bot's message to it (never to a bot)."""
    outcome = add_user(conn, realm_id, new)
    if new.bot_type is None:
        outcome.notices.extend(welcome_new_user(conn, realm_id, outcome.value))
    return outcome
