"""Full-text search over messages: SQLite FTS5 or PostgreSQL tsvector, behind one interface.

The index holds each message's topic and raw (markdown) content, keyed by message id:

- SQLite: an FTS5 virtual table `message_search(topic, content)` whose rowid is the message id,
  tokenised with `porter unicode61` (English stemming, case and diacritics folded);
- PostgreSQL: a table `message_search(message_id, search_tsvector)` with a GIN index, filled with
  `to_tsvector('english', topic || ' ' || content)`.

The actions that write messages (send, edit, move, delete) keep it current through
`index_messages` / `unindex_messages`; the narrow compiler asks `matching_ids` for the ids that
match a `search` operand. `highlight` adds Zulip's `match_content` / `match_subject` markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from atrium.chat import schema
from atrium.core.db import Conn, Prepared

M = schema.message.c

# Words as both backends' tokenisers see them: runs of letters and digits.
_WORD = re.compile(r"\w+", re.UNICODE)

_fts = sa.table("message_search", sa.column("rowid"), sa.column("topic"), sa.column("content"))
_tsv = sa.table("message_search", sa.column("message_id"), sa.column("search_tsvector"))


def search_words(operand: str) -> list[str]:
    """The words of a search operand, lower-cased, in order, without repeats."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(operand.lower()):
        seen.setdefault(word, None)
    return list(seen)


def _fts5_query(words: Sequence[str]) -> str:
    # Each word quoted, so that FTS5 syntax (AND, NEAR, *, ^, :) in user input is inert.
    return " ".join('"' + word.replace('"', '""') + '"' for word in words)


def matching_ids(conn: Conn, operand: str) -> sa.Select[tuple[int]] | None:
    """A subquery of the ids of the messages matching every word, or None if there is no word."""
    words = search_words(operand)
    if not words:
        return None
    if conn.is_sqlite:
        return sa.select(_fts.c.rowid).where(
            sa.literal_column("message_search").op("MATCH")(_fts5_query(words))
        )
    return sa.select(_tsv.c.message_id).where(
        _tsv.c.search_tsvector.op("@@")(sa.func.plainto_tsquery("english", " ".join(words)))
    )


def index_walk(
    conn: Conn, operands: Sequence[str], bound: int, descending: bool, limit: int
) -> list[int]:
    """Up to `limit` ids matching every operand, beyond `bound`, nearest first (SQLite).

    FTS5 yields matches in rowid order straight from its index, so a window over the newest
    matches costs what it returns, however common the words are.
    """
    words = [w for operand in operands for w in search_words(operand)]
    if not words:
        return []
    match = sa.literal_column("message_search").op("MATCH")(_fts5_query(words))
    query = sa.select(_fts.c.rowid).where(match)
    if descending:
        query = query.where(_fts.c.rowid < bound).order_by(_fts.c.rowid.desc())
    else:
        query = query.where(_fts.c.rowid > bound).order_by(_fts.c.rowid)
    return [int(i) for i in conn.scalars(query.limit(limit))]


def search_condition_sqlite(operand: str) -> ColumnElement[bool]:
    words = search_words(operand)
    if not words:
        return sa.false()
    match = sa.literal_column("message_search").op("MATCH")(_fts5_query(words))
    return M.id.in_(sa.select(_fts.c.rowid).where(match))


def search_condition(conn: Conn, operand: str) -> ColumnElement[bool]:
    ids = matching_ids(conn, operand)
    if ids is None:
        return sa.false()
    return M.id.in_(ids)


_INDEX_NEW_SQLITE = Prepared(
    sa.insert(_fts).values(
        rowid=sa.bindparam("id"), topic=sa.bindparam("topic"), content=sa.bindparam("content")
    )
)
_INDEX_NEW_POSTGRES = Prepared(
    sa.insert(_tsv).values(
        message_id=sa.bindparam("id"),
        search_tsvector=sa.func.to_tsvector(
            sa.literal_column("'english'::regconfig"), sa.bindparam("text", type_=sa.Text)
        ),
    )
)


def index_new_message(conn: Conn, message_id: int, topic: str, content: str) -> None:
    """Index a message just stored (the send path: one compiled-once insert)."""
    if conn.is_sqlite:
        conn.execute(_INDEX_NEW_SQLITE, {"id": message_id, "topic": topic, "content": content})
    else:
        conn.execute(_INDEX_NEW_POSTGRES, {"id": message_id, "text": topic + " " + content})


def index_messages(conn: Conn, message_ids: Sequence[int]) -> None:
    """(Re)index these messages from their current topic and content."""
    if not message_ids:
        return
    unindex_messages(conn, message_ids)
    for start in range(0, len(message_ids), 5000):
        chunk = list(message_ids[start : start + 5000])
        source = sa.select(M.id, M.topic, M.content).where(M.id.in_(chunk))
        if conn.is_sqlite:
            conn.execute(sa.insert(_fts).from_select(["rowid", "topic", "content"], source))
        else:
            vector = sa.func.to_tsvector(
                sa.literal_column("'english'::regconfig"), M.topic + " " + M.content
            )
            conn.execute(
                sa.insert(_tsv).from_select(
                    ["message_id", "search_tsvector"],
                    sa.select(M.id, vector).where(M.id.in_(chunk)),
                )
            )


def unindex_messages(conn: Conn, message_ids: Sequence[int]) -> None:
    for start in range(0, len(message_ids), 5000):
        chunk = list(message_ids[start : start + 5000])
        if conn.is_sqlite:
            conn.execute(sa.delete(_fts).where(_fts.c.rowid.in_(chunk)))
        else:
            conn.execute(sa.delete(_tsv).where(_tsv.c.message_id.in_(chunk)))


def rebuild(conn: Conn) -> int:
    """Index every message from scratch (after a bulk import); the number indexed."""
    if conn.is_sqlite:
        conn.execute("DELETE FROM message_search")
        conn.execute(
            "INSERT INTO message_search(rowid, topic, content) SELECT id, topic, content FROM message"
        )
    else:
        conn.execute("DELETE FROM message_search")
        conn.execute(
            "INSERT INTO message_search(message_id, search_tsvector) "
            "SELECT id, to_tsvector('english'::regconfig, topic || ' ' || content) FROM message"
        )
    return int(conn.scalar("SELECT count(*) FROM message"))


# --- Highlighting -------------------------------------------------------------------------------

_TAG_OR_TEXT = re.compile(r"(<[^>]*>)")


def _word_pattern(words: Sequence[str]) -> re.Pattern[str] | None:
    if not words:
        return None
    # A word matches at the start of a token: stemming makes "run" find "running" too.
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\w*", re.IGNORECASE | re.UNICODE)


def highlight_html(rendered: str, words: Sequence[str]) -> str:
    """Wrap the matching words of the text (never of tags or attributes) in a highlight span."""
    pattern = _word_pattern(words)
    if pattern is None:
        return rendered
    parts = _TAG_OR_TEXT.split(rendered)
    for i, part in enumerate(parts):
        if part and not part.startswith("<"):
            parts[i] = pattern.sub(lambda m: f'<span class="highlight">{m.group(0)}</span>', part)
    return "".join(parts)


def highlight_topic(topic: str, words: Sequence[str]) -> str:
    """The topic, HTML-escaped, with matching words highlighted (Zulip's `match_subject`)."""
    return highlight_html(html.escape(topic, quote=False), words)
