"""GET /messages/matches_narrow: which of some messages match a narrow, with search highlights.

As in Zulip, only messages the user received (`user_message` rows) are considered; each match
comes back keyed by its id (as a string) with `match_content` (the rendered content) and
`match_subject` (the escaped topic), search words highlighted when the narrow searches.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from atrium.chat import schema, search
from atrium.chat.models import User
from atrium.chat.narrow import Term, compile_narrow
from atrium.core.db import Conn

M = schema.message.c
UM = schema.user_message.c


def narrow_matches(
    conn: Conn, user: User, message_ids: Sequence[int], terms: Sequence[Term]
) -> dict[str, dict[str, str]]:
    narrow = compile_narrow(conn, user, terms)
    ids = sorted({i for i in message_ids if 0 < i < 2**31})
    if not ids:
        return {}
    query = (
        sa.select(M.id, M.topic, M.rendered_content)
        .select_from(schema.user_message.join(schema.message, M.id == UM.message_id))
        .where(UM.user_id == user.id, UM.message_id.in_(ids), narrow.condition)
        .order_by(M.id)
    )
    for operand in narrow.index_search:  # search operands the compiler left to an index walk
        query = query.where(search.search_condition_sqlite(operand))
    words = [
        w
        for t in terms
        if t.operator == "search" and not t.negated
        for w in search.search_words(str(t.operand))
    ]
    out: dict[str, dict[str, str]] = {}
    for row in conn.all(query):
        out[str(row["id"])] = {
            "match_content": search.highlight_html(row["rendered_content"] or "", words),
            "match_subject": search.highlight_topic(row["topic"], words),
        }
    return out
