"""The narrow language: a client's list of filters -> one SQL condition, for every reader.

GET /messages, flags/narrow and event filtering all call `compile_narrow`, so a filter means the
same thing everywhere. Parsing accepts both of Zulip's encodings (`{"operator","operand",
"negated"}` objects and legacy `[operator, operand]` pairs) and the legacy operator names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from atrium.chat import flags, schema
from atrium.chat.errors import ChatError
from atrium.chat.models import User
from atrium.chat.queries import streams as stream_queries
from atrium.core.db import Conn

M = schema.message.c
UM = schema.user_message.c

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


def bad_narrow(desc: str) -> ChatError:
    return ChatError(f"Invalid narrow operator: {desc}", "BAD_NARROW", desc=desc)


@dataclass(frozen=True)
class Term:
    operator: str
    operand: Any
    negated: bool = False


def parse_narrow(raw: Any) -> list[Term]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ChatError("narrow is not a list")
    terms = []
    for item in raw:
        if isinstance(item, dict):
            operator, operand = item.get("operator"), item.get("operand")
            negated = item.get("negated", False)
            if not isinstance(negated, bool):
                raise ChatError("negated is not a boolean")
        elif isinstance(item, list) and len(item) == 2:
            operator, operand = item
            negated = False
        else:
            raise bad_narrow("element is not a dict or an [operator, operand] pair")
        if not isinstance(operator, str):
            raise bad_narrow("operator is not a string")
        if operator.startswith("-"):
            operator, negated = operator[1:], True
        operator = ALIASES.get(operator, operator)
        if operator not in OPERATORS:
            raise bad_narrow(f"unknown operator {operator}")
        if not isinstance(operand, str | int | list):
            raise bad_narrow(f"invalid operand for {operator}")
        terms.append(Term(operator, operand, bool(negated)))
    _check_combination(terms)
    return terms


def _check_combination(terms: Sequence[Term]) -> None:
    positive = {t.operator for t in terms if not t.negated}
    is_dm = any(
        t.operator == "is" and t.operand in {"dm", "private"} and not t.negated for t in terms
    )
    if (positive & {"stream", "streams"}) and (positive & {"dm", "dm-including"} or is_dm):
        raise ChatError(
            "No message can be both a stream and a DM message",
            "BAD_NARROW",
            desc="No message can be both a stream and a DM message",
        )


@dataclass
class CompiledNarrow:
    """A WHERE clause over `message` (and `user_message` for personal flags).

    `history_stream_id` is set when the narrow is one stream whose whole history the user may read:
    then the query runs over `message` (with the user's flags joined in, if any) rather than over
    the messages the user received.
    """

    condition: ColumnElement[bool]
    history_stream_id: int | None
    needs_search: bool = False


class _Compiler:
    def __init__(self, conn: Conn, user: User) -> None:
        self.conn = conn
        self.user = user

    def stream_row(self, operand: Any) -> Any:
        if isinstance(operand, int) or (
            isinstance(operand, str) and operand.isdigit() and not self._name_exists(operand)
        ):
            row = stream_queries.stream_by_id(self.conn, self.user.realm_id, int(operand))
        elif isinstance(operand, str):
            row = stream_queries.stream_by_name(self.conn, self.user.realm_id, operand)
        else:
            row = None
        if row is None:
            raise bad_narrow("unknown stream")
        return row

    def _name_exists(self, name: str) -> bool:
        return stream_queries.stream_by_name(self.conn, self.user.realm_id, name) is not None

    def user_id(self, operand: Any) -> int:
        if isinstance(operand, int):
            found = self.conn.scalar(
                sa.select(schema.user.c.id).where(
                    schema.user.c.id == operand, schema.user.c.realm_id == self.user.realm_id
                )
            )
        elif isinstance(operand, str):
            found = self.conn.scalar(
                sa.select(schema.user.c.id).where(
                    schema.user.c.realm_id == self.user.realm_id,
                    sa.func.lower(schema.user.c.email) == operand.strip().lower(),
                )
            )
        else:
            found = None
        if found is None:
            raise bad_narrow("unknown user")
        return int(found)

    def user_ids(self, operand: Any) -> list[int]:
        if isinstance(operand, list):
            return [self.user_id(item) for item in operand]
        if isinstance(operand, int):
            return [self.user_id(operand)]
        return [self.user_id(email) for email in str(operand).split(",") if email.strip()]

    def personal_recipient(self, user_id: int) -> int:
        return int(
            self.conn.scalar(
                sa.select(schema.user.c.recipient_id).where(schema.user.c.id == user_id)
            )
        )

    def flag(self, bit: int) -> ColumnElement[bool]:
        return sa.func.coalesce(UM.flags, 0).op("&")(bit) != 0

    def term(self, term: Term) -> ColumnElement[bool]:
        op, operand = term.operator, term.operand
        if op == "stream":
            stream_id: int = self.stream_row(operand)["id"]
            return M.stream_id == stream_id
        if op == "streams":
            if operand not in {"public", "web-public"}:
                raise bad_narrow(f"invalid streams operand {operand}")
            column = (
                schema.stream.c.is_web_public
                if operand == "web-public"
                else sa.not_(schema.stream.c.invite_only)
            )
            return M.stream_id.in_(
                sa.select(schema.stream.c.id).where(
                    schema.stream.c.realm_id == self.user.realm_id, column
                )
            )
        if op == "topic":
            if not isinstance(operand, str):
                raise bad_narrow("topic operand is not a string")
            return sa.and_(
                M.stream_id.is_not(None),
                sa.func.lower(M.topic) == sa.func.lower(sa.literal(operand)),
            )
        if op == "sender":
            return M.sender_id == self.user_id(operand)
        if op == "id":
            try:
                return M.id == int(operand)
            except (TypeError, ValueError):
                raise bad_narrow("invalid message ID") from None
        if op == "dm":
            return self.dm_condition(self.user_ids(operand))
        if op == "dm-including":
            other = self.user_id(operand)
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
                muted = sa.select(schema.subscription.c.stream_id).where(
                    schema.subscription.c.user_id == self.user.id,
                    schema.subscription.c.is_muted.is_(True),
                )
                return sa.or_(M.stream_id.is_(None), M.stream_id.not_in(muted))
            raise bad_narrow(f"unknown 'in' operand {operand}")
        if op == "near":
            return sa.true()  # moves the anchor only; applied by the caller
        if op == "search":
            if not isinstance(operand, str) or not operand.strip():
                raise bad_narrow("empty search")
            condition: ColumnElement[bool] = sa.true()
            for word in operand.split():
                pattern = "%" + word.lower().replace("%", r"\%").replace("_", r"\_") + "%"
                condition = sa.and_(
                    condition,
                    sa.or_(
                        sa.func.lower(M.content).like(pattern, escape="\\"),
                        sa.func.lower(M.topic).like(pattern, escape="\\"),
                    ),
                )
            return condition
        raise bad_narrow(f"unknown operator {op}")

    def is_term(self, operand: Any) -> ColumnElement[bool]:
        if operand in {"dm", "private"}:
            return M.stream_id.is_(None)
        if operand == "starred":
            return self.flag(flags.STARRED)
        if operand == "unread":
            return sa.not_(self.flag(flags.READ))
        if operand in {"mentioned", "alerted"}:
            bits = (
                flags.MENTIONED
                | flags.STREAM_WILDCARD_MENTIONED
                | flags.TOPIC_WILDCARD_MENTIONED
                | flags.GROUP_MENTIONED
            )
            if operand == "alerted":
                bits = flags.BIT["has_alert_word"]
            return self.flag(bits)
        if operand == "resolved":
            return M.topic.like("✔ %")
        raise bad_narrow(f"unknown 'is' operand {operand}")

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


def huddle_hash(user_ids: Sequence[int]) -> str:
    key = ",".join(str(i) for i in sorted(set(user_ids)))
    return hashlib.sha1(key.encode()).hexdigest()


def compile_narrow(conn: Conn, user: User, terms: Sequence[Term]) -> CompiledNarrow:
    compiler = _Compiler(conn, user)
    condition: ColumnElement[bool] = sa.true()
    history_stream_id = None
    for term in terms:
        clause = compiler.term(term)
        condition = sa.and_(condition, sa.not_(clause) if term.negated else clause)
        if term.operator == "stream" and not term.negated:
            stream = compiler.stream_row(term.operand)
            subscribed = stream_queries.active_subscription(conn, user.id, stream["id"]) is not None
            if (
                stream_queries.can_read_stream(user, stream, subscribed)
                and stream["history_public_to_subscribers"]
            ):
                history_stream_id = stream["id"]
    return CompiledNarrow(
        condition,
        history_stream_id,
        needs_search=any(t.operator == "search" for t in terms),
    )
