"""POST/DELETE /users/me/alert_words: a user's alert words, announced by `alert_words` events."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries.alert_words import user_alert_words
from atrium.core.db import Conn

A = schema.alert_word.c
MAX_ALERT_WORD_LENGTH = 100


def check_words(words: list[str]) -> list[str]:
    """Stripped, non-empty, within Zulip's length limit."""
    for index, word in enumerate(words):
        if len(word) > MAX_ALERT_WORD_LENGTH:
            raise ChatError(
                f"alert_words[{index}] is too long (limit: {MAX_ALERT_WORD_LENGTH} characters)"
            )
    return [w.strip() for w in words if w.strip()]


def _outcome(conn: Conn, user: User) -> Outcome[list[str]]:
    words = user_alert_words(conn, user.id)
    return Outcome(words, [Notice({"type": "alert_words", "alert_words": words}, [user.id])])


def add_alert_words(conn: Conn, user: User, words: list[str]) -> Outcome[list[str]]:
    known = {w.lower() for w in user_alert_words(conn, user.id)}
    for word in check_words(words):
        if word.lower() in known:
            continue
        known.add(word.lower())
        conn.execute(
            sa.insert(schema.alert_word).values(user_id=user.id, realm_id=user.realm_id, word=word)
        )
    return _outcome(conn, user)


def remove_alert_words(conn: Conn, user: User, words: list[str]) -> Outcome[list[str]]:
    gone = {w.lower() for w in check_words(words)}
    if gone:
        conn.execute(
            sa.delete(schema.alert_word).where(
                A.user_id == user.id, sa.func.lower(A.word).in_(sorted(gone))
            )
        )
    return _outcome(conn, user)
