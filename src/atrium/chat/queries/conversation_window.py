"""The window of a stream or stream + topic narrow, with constant statements.

Reading a conversation (a stream, or a topic in it) is what clients fetch most. The general path
(`narrow.compile_narrow` + `messages.window_rows`) builds a SQLAlchemy expression per request,
and building, keying and binding it is a large share of a topic fetch (docs/decisions/0001). Here the
same query is one of a few `Prepared` statements, chosen by the narrow's shape and bound with
its values. The rows, the access rule (history mode exactly when `whole_history_readable`) and
the errors are the general path's: tests hold the two equal on every kind of reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import User
from atrium.chat.narrow import Term, history_readable, narrow_stream
from atrium.core.db import Conn, Prepared

M = schema.message.c
UM = schema.user_message.c
S = schema.stream.c
SUB = schema.subscription.c

Side = Literal["before", "at", "after"]

# Message ids are 32-bit; PostgreSQL refuses to compare them with larger anchors.
MAX_SQL_ID = 2**31 - 1

# What a fetch needs of each row when the message objects come from the cache: the message's
# cache version (see message_cache), then the reader's flags. The rest of what a message object
# depends on (sender, recipient, stream, topic) changes only with that version, so it comes from
# the cache too: each column read here costs about a tenth of a 100-row window's SQL.
LIGHT_COLUMNS = (M.id, M.date_sent, M.last_edit_time, M.reaction_version)


class LIGHT_ROW:
    """Positions in a light row: `LIGHT_COLUMNS`, then the reader's flags (None: not received)."""

    ID, DATE_SENT, LAST_EDIT, REACTION_VERSION, FLAGS = range(5)
    VERSION = slice(0, 4)  # (id, date_sent, last_edit_time, reaction_version): see message_cache


def conversation_operands(terms: Sequence[Term]) -> tuple[Any, str | None] | None:
    """(stream operand, topic or None) when the narrow is `stream` or `stream` + `topic`."""
    stream: Any = None
    topic: str | None = None
    for term in terms:
        if term.negated:
            return None
        if term.operator == "stream" and stream is None:
            stream = term.operand
        elif term.operator == "topic" and topic is None:
            topic = str(term.operand)
        else:
            return None
    return None if stream is None else (stream, topic)


def _statement(history: bool, with_topic: bool, side: Side) -> sa.Select[Any]:
    columns = [*LIGHT_COLUMNS, UM.flags.label("user_flags")]
    user_id: sa.BindParameter[int] = sa.bindparam("user_id")
    if history:
        # Every message of the stream, the reader's flags where the reader received it.
        join = schema.message.outerjoin(
            schema.user_message, sa.and_(UM.message_id == M.id, UM.user_id == user_id)
        )
        where = [M.recipient_id == sa.bindparam("recipient_id")]
    else:
        join = schema.user_message.join(schema.message, M.id == UM.message_id)
        where = [UM.user_id == user_id, M.recipient_id == sa.bindparam("recipient_id")]
    # Ordered by the message's id in both modes, so that SQLite walks the message index of the
    # recipient (and topic) and looks up the reader's rows, rather than walking every row the
    # reader received (measured on 1M messages: 0.46 ms against 148 ms for a sparse topic).
    id_col = M.id
    if with_topic:
        where += [
            M.stream_id.is_not(None),
            sa.func.lower(M.topic) == sa.func.lower(sa.bindparam("topic")),
        ]
    bound: sa.BindParameter[int] = sa.bindparam("bound")
    query = sa.select(*columns).select_from(join).where(*where)
    if side == "at":
        return query.where(id_col == bound)
    limit: sa.BindParameter[int] = sa.bindparam("limit")
    if side == "before":
        return query.where(id_col < bound).order_by(id_col.desc()).limit(limit)
    return query.where(id_col > bound).order_by(id_col).limit(limit)


_STATEMENTS = {
    (history, with_topic, side): Prepared(_statement(history, with_topic, side))
    for history in (False, True)
    for with_topic in (False, True)
    for side in ("before", "at", "after")
}


def _stream_statement(by: Literal["name", "id"]) -> Prepared:
    """What the window needs of the narrow's stream, and whether the reader is subscribed."""
    subscribed = (
        sa.select(SUB.id)
        .where(
            SUB.user_id == sa.bindparam("user_id"),
            SUB.stream_id == S.id,
            SUB.active.is_(True),
        )
        .exists()
    )
    match = (
        sa.func.lower(S.name) == sa.func.lower(sa.bindparam("name"))
        if by == "name"
        else S.id == sa.bindparam("stream_id")
    )
    return Prepared(
        sa.select(
            S.id,
            S.name,
            S.recipient_id,
            S.invite_only,
            S.is_web_public,
            S.history_public_to_subscribers,
            subscribed.label("subscribed"),
        ).where(S.realm_id == sa.bindparam("realm_id"), match, S.deactivated.is_(False))
    )


_STREAM_BY_NAME = _stream_statement("name")
_STREAM_BY_ID = _stream_statement("id")


def _conversation_stream(conn: Conn, user: User, operand: Any) -> Any:
    """The narrow's stream as `narrow.narrow_stream` finds it, with the reader's subscription,
    in one statement."""
    params = {"realm_id": user.realm_id, "user_id": user.id}
    return narrow_stream(
        conn,
        user,
        operand,
        by_id=lambda stream_id: conn.one(_STREAM_BY_ID, {**params, "stream_id": stream_id}),
        by_name=lambda name: conn.one(_STREAM_BY_NAME, {**params, "name": name}),
    )


class ConversationWindow:
    """The rows of one conversation narrow around numeric anchors (see `window_rows`)."""

    def __init__(self, conn: Conn, user: User, stream_operand: Any, topic: str | None) -> None:
        self.conn = conn
        stream = _conversation_stream(conn, user, stream_operand)
        history = history_readable(user, stream, bool(stream["subscribed"]))
        self.params: dict[str, Any] = {
            "user_id": user.id,
            "recipient_id": stream["recipient_id"],
            "topic": topic,
        }
        self.history = history
        self.with_topic = topic is not None
        self.stream_names = {stream["id"]: stream["name"]}

    def side(self, side: Side, anchor_id: int, limit: int = 0) -> list[Any]:
        """Rows before the anchor (nearest first), at it, or after it (nearest first)."""
        statement = _STATEMENTS[(self.history, self.with_topic, side)]
        bound = min(anchor_id, MAX_SQL_ID)
        return self.conn.tuples(statement, {**self.params, "bound": bound, "limit": limit})
