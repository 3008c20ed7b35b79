"""Alert words: a user's words, and which recipients of a message it alerts."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn

A = schema.alert_word.c


def user_alert_words(conn: Conn, user_id: int) -> list[str]:
    return [
        str(w) for w in conn.scalars(sa.select(A.word).where(A.user_id == user_id).order_by(A.id))
    ]


def _word_pattern(words: list[str]) -> re.Pattern[str]:
    # A word alerts where it stands alone, in any case: not inside a longer word.
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def alerted_users(conn: Conn, realm_id: int, receivers: Iterable[int], content: str) -> set[int]:
    """The receivers one of whose alert words the content contains (the `has_alert_word` flag).

    One indexed read of the realm's alert words; most realms have few.
    """
    wanted = set(receivers)
    by_user: dict[int, list[str]] = defaultdict(list)
    for row in conn.all(sa.select(A.user_id, A.word).where(A.realm_id == realm_id)):
        if row["user_id"] in wanted:
            by_user[row["user_id"]].append(row["word"])
    return {uid for uid, words in by_user.items() if _word_pattern(words).search(content)}
