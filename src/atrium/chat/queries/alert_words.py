"""Alert words: a user's words, and which recipients of a message it alerts."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn, Prepared

A = schema.alert_word.c
# Every message's send asks it, inside the send's transaction.
_REALM_WORDS = Prepared(sa.select(A.user_id, A.word).where(A.realm_id == sa.bindparam("realm")))


def user_alert_words(conn: Conn, user_id: int) -> list[str]:
    return [
        str(w) for w in conn.scalars(sa.select(A.word).where(A.user_id == user_id).order_by(A.id))
    ]


# The characters that may stand before and after an alert word, as Zulip's server checks them on
# the lower-cased Markdown source: a word inside a longer word, a path or a hyphenation does not
# alert. (Zulip's after-set holds '",' as one string, so a double quote never ends a match.)
_BEFORE = " \n(\".,';[*`>"
_AFTER = " \n)?:.,';]!*`"


def _word_pattern(words: list[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(w.lower()) for w in sorted(words, key=len, reverse=True))
    before = f"(?:^|(?<=[{re.escape(_BEFORE)}]))"
    after = f"(?=$|[{re.escape(_AFTER)}])"
    # Overlapping candidates matter ("ab" and "b c"), hence a lookahead scan, not one alternation.
    return re.compile(f"{before}(?=(?:{alternatives}){after})")


def content_alerts(words: list[str], content: str) -> bool:
    """Whether the content alerts a user with these words (case-insensitive, whole words)."""
    return bool(words) and _word_pattern(words).search(content.lower()) is not None


def alerted_users(conn: Conn, realm_id: int, receivers: Iterable[int], content: str) -> set[int]:
    """The receivers one of whose alert words the content contains (the `has_alert_word` flag).

    One indexed read of the realm's alert words; most realms have few.
    """
    wanted = set(receivers)
    by_user: dict[int, list[str]] = defaultdict(list)
    for row in conn.all(_REALM_WORDS, {"realm": realm_id}):
        if row["user_id"] in wanted:
            by_user[row["user_id"]].append(row["word"])
    return {uid for uid, words in by_user.items() if content_alerts(words, content)}
