"""The narrow language: a client's list of filters -> one SQL condition, for every reader.

GET /messages, flags/narrow and event filtering all call `compile_narrow`, so a filter means the
same thing everywhere. Parsing accepts both of Zulip's encodings (`{"operator","operand",
"negated"}` objects and legacy `[operator, operand]` pairs), the legacy operator names
(`pm-with`, `group-pm-with`, `is:private`, `subject`) and a `-` prefix for negation.

Every operator of feature level 185 is here: `stream` (name or id), `streams` (public,
web-public), `topic` (case-insensitive), `sender`, `dm`, `dm-including`, `is` (dm/private,
starred, unread, mentioned, alerted, resolved), `has` (link, image, attachment), `in` (home,
all), `near` (moves the anchor only), `id` and `search` (full text, see chat/search.py).

Security: a condition only ever removes rows. The rows a narrow starts from are the messages
the user received (`user_message`), or, in history mode, every message of streams whose whole
history the user may read; a narrow is in history mode only when it is restricted to such
streams (Zulip's `ok_to_include_history`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from atrium.chat import flags, schema, search
from atrium.chat.errors import ChatError
from atrium.chat.models import SYSTEM_BOT_NAMES, User
from atrium.chat.params import INT_MAX, digits_id
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.user_topics import muted_topics_condition
from atrium.core.db import Conn

M = schema.message.c
UM = schema.user_message.c
S = schema.stream.c

# Legacy names Zulip still accepts, mapped to today's.
ALIASES = {"pm-with": "dm", "group-pm-with": "dm-including", "subject": "topic"}
OPERATORS = frozenset(
    {
        "stream",
        "streams",
        "topic",
        "sender",
        "dm",
        "dm-including",
        "is",
        "has",
        "in",
        "near",
        "id",
        "search",
    }
)
# Operand types per operator, as Zulip validates them (feature level 185).
_ID_OPERATORS = frozenset({"id", "stream", "sender", "dm-including"})
_ID_LIST_OPERATORS = frozenset({"dm"})
RESOLVED_TOPIC_PREFIX = "✔ "
# A message without a delivery row, read in history mode, shows as read and historical.
HISTORICAL_FLAGS = flags.READ | flags.HISTORICAL
MENTION_BITS = (
    flags.MENTIONED
    | flags.STREAM_WILDCARD_MENTIONED
    | flags.TOPIC_WILDCARD_MENTIONED
    | flags.GROUP_MENTIONED
)


# The most terms one narrow may have, a search's quoted phrases counted as terms. Each nests the
# query's condition one level deeper, and the databases bound that depth (SQLite at 1000);
# clients send a handful.
MAX_NARROW_TERMS = 100
_PHRASE = re.compile(r'"([^"]+)"')


def bad_narrow(desc: str) -> ChatError:
    return ChatError(f"Invalid narrow operator: {desc}", "BAD_NARROW", desc=desc)


@dataclass(frozen=True)
class Term:
    operator: str
    operand: Any
    negated: bool = False


def _check_operand(operator: str, operand: Any) -> None:
    where = 'elem["operand"]'
    if operator in _ID_OPERATORS:
        if isinstance(operand, bool) or not isinstance(operand, str | int):
            raise ChatError(f"{where} is not a string or integer")
    elif operator in _ID_LIST_OPERATORS:
        ok = isinstance(operand, str) or (
            isinstance(operand, list)
            and all(isinstance(i, int) and not isinstance(i, bool) for i in operand)
        )
        if not ok:
            raise ChatError(f"{where} is not a string or an integer list")
    elif not isinstance(operand, str):
        raise ChatError(f"{where} is not a string")
    if operator == "search" and not operand.strip():
        raise ChatError(f"{where} cannot be blank.")


def parse_narrow(raw: Any) -> list[Term]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ChatError("narrow is not a list")
    too_many = bad_narrow(f"too many terms (at most {MAX_NARROW_TERMS})")
    if len(raw) > MAX_NARROW_TERMS:
        raise too_many
    terms = []
    for item in raw:
        if isinstance(item, dict):
            operator, operand = item.get("operator"), item.get("operand")
            negated = item.get("negated", False)
            if not isinstance(operator, str):
                raise ChatError('elem["operator"] is not a string')
            if "operand" not in item:
                raise ChatError("operand key is missing from elem")
            if not isinstance(negated, bool):
                raise ChatError('elem["negated"] is not a boolean')
        elif isinstance(item, list):
            if len(item) != 2 or not all(isinstance(x, str) for x in item):
                raise ChatError("element is not a string pair")
            operator, operand = item
            negated = False
        else:
            raise ChatError("element is not a dictionary")
        if operator.startswith("-"):
            operator, negated = operator[1:], True
        # Zulip looks operators up with "-" and "_" alike (`pm_with` is `pm-with`).
        given, operator = operator, operator.replace("_", "-")
        operator = ALIASES.get(operator, operator)
        if operator not in OPERATORS:
            raise bad_narrow(f"unknown operator {given}")
        _check_operand(operator, operand)
        terms.append(Term(operator, operand, bool(negated)))
    phrases = sum(len(_PHRASE.findall(t.operand)) for t in terms if t.operator == "search")
    if len(terms) + phrases > MAX_NARROW_TERMS:
        raise too_many
    _check_combination(terms)
    return terms


def _is_dm_term(term: Term) -> bool:
    return term.operator in {"dm", "dm-including"} or (
        term.operator == "is" and term.operand in {"dm", "private"}
    )


def _check_combination(terms: Sequence[Term]) -> None:
    positive = [t for t in terms if not t.negated]
    has_stream = any(t.operator in {"stream", "streams"} for t in positive)
    if has_stream and any(_is_dm_term(t) for t in positive):
        raise ChatError(
            "No message can be both a stream and a DM message",
            "BAD_NARROW",
            desc="No message can be both a stream and a DM message",
        )


@dataclass
class CompiledNarrow:
    """A WHERE clause over `message` (and `user_message` for personal flags).

    With `history` set, the query runs over `message` (the user's flags outer-joined) rather
    than over the messages the user received: the narrow is limited to streams whose whole
    history the user may read. `history_stream_id` names the stream when there is one.
    """

    condition: ColumnElement[bool]
    history_stream_id: int | None
    needs_search: bool = False
    history: bool = False
    search_words: tuple[str, ...] = ()
    # Positive search operands left out of `condition`, for an index walk (SQLite, see above).
    index_search: tuple[str, ...] = ()
    # Restricted to one stream's recipient, whose message index should drive the query.
    by_recipient: bool = False


def _user_flags() -> ColumnElement[int]:
    return sa.func.coalesce(UM.flags, HISTORICAL_FLAGS)


def narrow_stream(
    conn: Conn,
    user: User,
    operand: Any,
    by_id: Callable[[int], Any] | None = None,
    by_name: Callable[[str], Any] | None = None,
) -> Any:
    """The stream a `stream` operand names (a name, or an id as number or digits).

    `by_id`/`by_name` read the stream another way (with more columns); by default, the
    realm's active stream row.
    """
    by_id = by_id or partial(stream_queries.stream_by_id, conn, user.realm_id)
    by_name = by_name or partial(stream_queries.stream_by_name, conn, user.realm_id)
    row = None
    if isinstance(operand, int):
        row = by_id(operand)
    elif isinstance(operand, str):
        row = by_name(operand)
        stream_id = digits_id(operand)
        if row is None and stream_id is not None:
            row = by_id(stream_id)
    if row is None:
        raise bad_narrow(f"unknown stream {operand}")
    return row


def whole_history_readable(conn: Conn, user: User, stream: Any) -> bool:
    """May the user read every message of the stream, received or not (history mode)?"""
    subscribed = stream_queries.active_subscription(conn, user.id, stream["id"]) is not None
    return history_readable(user, stream, subscribed)


def history_readable(user: User, stream: Any, subscribed: bool) -> bool:
    """`whole_history_readable` when the caller already knows whether the user is subscribed."""
    return bool(stream["history_public_to_subscribers"]) and stream_queries.can_read_stream(
        user, stream, subscribed
    )


class _Compiler:
    def __init__(self, conn: Conn, user: User) -> None:
        self.conn = conn
        self.user = user

    def stream_row(self, operand: Any) -> Any:
        return narrow_stream(self.conn, self.user, operand)

    def user_id(self, operand: Any, desc: str | None = None) -> int:
        U = schema.user.c
        found = None
        as_id = operand if isinstance(operand, int) and 0 <= operand <= INT_MAX else None
        if isinstance(operand, str):
            as_id = digits_id(operand)
        if as_id is not None:
            # The server's own bots (Welcome Bot…) are in no organization, yet write to people.
            in_reach = sa.or_(U.realm_id == self.user.realm_id, U.email.in_(SYSTEM_BOT_NAMES))
            found = self.conn.scalar(sa.select(U.id).where(U.id == as_id, in_reach))
        if found is None and isinstance(operand, str):
            found = self.conn.scalar(
                sa.select(U.id).where(
                    sa.or_(U.realm_id == self.user.realm_id, U.email.in_(SYSTEM_BOT_NAMES)),
                    sa.func.lower(U.email) == operand.strip().lower(),
                )
            )
        if found is None:
            raise bad_narrow(desc or f"unknown user {operand}")
        return int(found)

    def user_ids(self, operand: Any) -> list[int]:
        desc = f"unknown user in {operand}"
        if isinstance(operand, list):
            return [self.user_id(item, desc) for item in operand]
        if isinstance(operand, int):
            return [self.user_id(operand, desc)]
        emails = [email for email in str(operand).split(",") if email.strip()]
        if not emails:
            raise bad_narrow(desc)
        return [self.user_id(email, desc) for email in emails]

    def personal_recipient(self, user_id: int) -> int:
        return int(
            self.conn.scalar(
                sa.select(schema.user.c.recipient_id).where(schema.user.c.id == user_id)
            )
        )

    def flag(self, bits: int) -> ColumnElement[bool]:
        return _user_flags().op("&")(bits) != 0

    def term(self, term: Term, has_stream_term: bool) -> ColumnElement[bool]:
        op, operand = term.operator, term.operand
        if op == "stream":
            # By recipient: the (recipient_id, id) index then serves the window's id order.
            recipient_id: int = self.stream_row(operand)["recipient_id"]
            return M.recipient_id == recipient_id
        if op == "streams":
            if operand == "public":
                column = sa.not_(S.invite_only)
            elif operand == "web-public":
                column = S.is_web_public.is_(True)
            else:
                raise bad_narrow(f"unknown streams operand {operand}")
            return M.stream_id.in_(sa.select(S.id).where(S.realm_id == self.user.realm_id, column))
        if op == "topic":
            return sa.and_(
                M.stream_id.is_not(None),
                sa.func.lower(M.topic) == sa.func.lower(sa.literal(operand)),
            )
        if op == "sender":
            return M.sender_id == self.user_id(operand)
        if op == "id":
            text = str(operand)
            if not (text.isascii() and text.isdigit()):
                raise bad_narrow("Invalid message ID")
            return M.id == min(int(text), 2**31 - 1)
        if op == "dm":
            return self.dm_condition(self.user_ids(operand))
        if op == "dm-including":
            return self.dm_including(self.user_id(operand))
        if op == "is":
            return self.is_term(operand)
        if op == "has":
            columns = {"link": M.has_link, "image": M.has_image, "attachment": M.has_attachment}
            if operand not in columns:
                raise bad_narrow(f"unknown 'has' operand {operand}")
            return columns[operand].is_(True)
        if op == "in":
            if operand == "all":
                return sa.true()
            if operand == "home":
                # Muted topics are left out of combined views, as Zulip does.
                unmuted_topics = muted_topics_condition(self.conn, self.user.id)
                if has_stream_term:
                    # Muting a stream hides it from combined views, not from its own narrow.
                    return sa.true() if unmuted_topics is None else unmuted_topics
                muted = sa.select(schema.subscription.c.stream_id).where(
                    schema.subscription.c.user_id == self.user.id,
                    schema.subscription.c.active.is_(True),
                    schema.subscription.c.is_muted.is_(True),
                )
                home = sa.or_(M.stream_id.is_(None), M.stream_id.not_in(muted))
                return home if unmuted_topics is None else sa.and_(home, unmuted_topics)
            raise bad_narrow(f"unknown 'in' operand {operand}")
        if op == "near":
            return sa.true()  # moves the anchor only; applied by the caller
        if op == "search":
            return self.search(str(operand))
        raise bad_narrow(f"unknown operator {op}")

    def search(self, operand: str, index_separately: bool = False) -> ColumnElement[bool]:
        """The search condition; with `index_separately`, only its phrase part (the caller then
        walks the full-text index itself, newest first, instead of joining all its matches)."""
        condition = sa.true() if index_separately else search.search_condition(self.conn, operand)
        # A quoted phrase must also appear as written (Zulip adds a LIKE for each).
        for phrase in _PHRASE.findall(operand):
            pattern = "%" + phrase.lower().replace("\\", "\\\\").replace("%", r"\%")
            pattern = pattern.replace("_", r"\_") + "%"
            condition = sa.and_(
                condition,
                sa.or_(
                    sa.func.lower(M.content).like(pattern, escape="\\"),
                    sa.func.lower(M.topic).like(pattern, escape="\\"),
                ),
            )
        return condition

    def is_term(self, operand: Any) -> ColumnElement[bool]:
        if operand in {"dm", "private"}:
            return M.stream_id.is_(None)
        if operand == "starred":
            return self.flag(flags.STARRED)
        if operand == "unread":
            return sa.not_(self.flag(flags.READ))
        if operand == "mentioned":
            return self.flag(MENTION_BITS)
        if operand == "alerted":
            return self.flag(flags.BIT["has_alert_word"])
        if operand == "resolved":
            return sa.and_(
                M.stream_id.is_not(None),
                sa.func.substr(M.topic, 1, len(RESOLVED_TOPIC_PREFIX)) == RESOLVED_TOPIC_PREFIX,
            )
        raise bad_narrow(f"unknown 'is' operand {operand}")

    def dm_including(self, other: int) -> ColumnElement[bool]:
        if other == self.user.id:
            return M.stream_id.is_(None)
        return sa.and_(
            M.stream_id.is_(None),
            sa.or_(
                M.sender_id == other,
                M.recipient_id == self.personal_recipient(other),
                M.recipient_id.in_(
                    sa.select(schema.huddle.c.recipient_id)
                    .join(
                        schema.huddle_member,
                        schema.huddle_member.c.huddle_id == schema.huddle.c.id,
                    )
                    .where(schema.huddle_member.c.user_id == other)
                ),
            ),
        )

    def dm_condition(self, user_ids: list[int]) -> ColumnElement[bool]:
        participants = sorted(set(user_ids) | {self.user.id})
        if len(participants) == 1:
            return sa.and_(
                M.sender_id == self.user.id, M.recipient_id == self.personal_recipient(self.user.id)
            )
        if len(participants) == 2:
            other = participants[0] if participants[1] == self.user.id else participants[1]
            return sa.or_(
                sa.and_(
                    M.sender_id == self.user.id, M.recipient_id == self.personal_recipient(other)
                ),
                sa.and_(
                    M.sender_id == other, M.recipient_id == self.personal_recipient(self.user.id)
                ),
            )
        recipient_id = self.conn.scalar(
            sa.select(schema.huddle.c.recipient_id).where(
                schema.huddle.c.huddle_hash == huddle_hash(participants)
            )
        )
        return M.recipient_id == (recipient_id if recipient_id is not None else -1)

    def history_stream(self, terms: Sequence[Term]) -> tuple[bool, int | None]:
        """Zulip's ok_to_include_history: may rows without a delivery row be included?"""
        include, stream_id = False, None
        for term in terms:
            if term.negated:
                continue
            if term.operator == "stream":
                stream = self.stream_row(term.operand)
                include = whole_history_readable(self.conn, self.user, stream)
                stream_id = stream["id"] if include else None
            elif term.operator == "streams" and term.operand == "public" and not self.user.is_guest:
                include = True
        # Flags live on delivery rows: a narrow on them has no historical messages anyway.
        if any(term.operator == "is" for term in terms):
            return False, None
        return include, stream_id


def huddle_hash(user_ids: Sequence[int]) -> str:
    key = ",".join(str(i) for i in sorted(set(user_ids)))
    return hashlib.sha1(key.encode()).hexdigest()


def compile_narrow(conn: Conn, user: User, terms: Sequence[Term]) -> CompiledNarrow:
    compiler = _Compiler(conn, user)
    has_stream_term = any(t.operator == "stream" and not t.negated for t in terms)
    condition: ColumnElement[bool] = sa.true()
    index_search: list[str] = []
    for term in terms:
        if term.operator == "search" and not term.negated and conn.is_sqlite:
            index_search.append(str(term.operand))
            condition = sa.and_(condition, compiler.search(str(term.operand), True))
            continue
        clause = compiler.term(term, has_stream_term)
        if term.negated:
            # NOT of a NULL comparison (a DM's stream_id) is NULL: make it a real false first.
            clause = sa.not_(sa.func.coalesce(clause, sa.false()))
        condition = sa.and_(condition, clause)
    if not has_stream_term:
        # A stream term names an active stream; without one, an archived stream's messages
        # (still in the reader's delivery rows) are left out, as everywhere else.
        archived = stream_queries.deactivated_stream_ids(conn, user.realm_id)
        if archived:
            condition = sa.and_(
                condition, sa.or_(M.stream_id.is_(None), M.stream_id.not_in(archived))
            )
    history, history_stream_id = compiler.history_stream(terms)
    words: list[str] = []
    for term in terms:
        if term.operator == "search" and not term.negated:
            words += search.search_words(str(term.operand))
    return CompiledNarrow(
        condition,
        history_stream_id,
        needs_search=any(t.operator == "search" for t in terms),
        history=history,
        search_words=tuple(words),
        index_search=tuple(index_search),
        by_recipient=has_stream_term,
    )
