"""Personal message flags: POST /messages/flags(/narrow) and the mark-as-read shortcuts.

Only `read`, `starred` and `collapsed` may be changed by clients. A readable message the user
never received (a public-history stream joined later) gets a delivery row flagged `historical`
(and `read`) first, as Zulip does, so that its flags have somewhere to live. `updated_count` and
the event list only the messages whose flag really changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
import sqlalchemy as sa

from atrium.chat import flags, schema
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.narrow import HISTORICAL_FLAGS, Term
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.messages import window_rows
from atrium.core.db import Conn

M = schema.message.c
UM = schema.user_message.c

MAX_MESSAGES_PER_UPDATE = 5000
CHUNK = 5000
# Every flag a client may name (the hidden bookkeeping bits are not among them).
API_FLAGS = frozenset(name for name in flags.FLAG_NAMES if name not in flags.HIDDEN)


def check_flag_operation(flag: str, op: str) -> None:
    if flag not in API_FLAGS:
        raise ChatError(f"Invalid flag: '{flag}'")
    if flag not in flags.EDITABLE:
        raise ChatError(f"Flag not editable: '{flag}'")
    if op not in {"add", "remove"}:
        raise ChatError(f"Invalid message flag operation: '{op}'")


def _chunks(ids: Sequence[int]) -> list[list[int]]:
    return [list(ids[i : i + CHUNK]) for i in range(0, len(ids), CHUNK)]


def _among(conn: Conn, ids: Sequence[int]) -> Any:
    """`message_id IN ids`; on SQLite as one JSON parameter rather than thousands of binds,
    which SQLAlchemy would otherwise render one by one for every statement."""
    if not conn.is_sqlite:
        return UM.message_id.in_(ids)
    values: sa.Select[Any] = sa.select(sa.literal_column("value")).select_from(
        sa.func.json_each(sa.literal(orjson.dumps(list(ids)).decode()))
    )
    return UM.message_id.in_(values)


def _archived_ids(conn: Conn, user: User, message_ids: Sequence[int]) -> bool:
    """Whether any of these messages is in an archived stream (readable by nobody)."""
    archived = stream_queries.deactivated_stream_ids(conn, user.realm_id)
    if not archived:
        return False
    return any(
        conn.scalar(sa.select(M.id).where(M.id.in_(chunk), M.stream_id.in_(archived)).limit(1))
        is not None
        for chunk in _chunks(list(message_ids))
    )


def _readable_without_row(conn: Conn, user: User, message_ids: Sequence[int]) -> set[int]:
    """Which of these messages (that the user did not receive) the user may still read."""
    subscribed, public = stream_queries.readable_stream_ids(conn, user)
    history_streams = [
        row["id"]
        for row in conn.all(
            sa.select(schema.stream.c.id, schema.stream.c.history_public_to_subscribers).where(
                schema.stream.c.id.in_(sorted(subscribed | public))
            )
        )
        if row["history_public_to_subscribers"]
    ]
    readable: set[int] = set()
    for chunk in _chunks(list(message_ids)):
        readable |= set(
            conn.scalars(
                sa.select(M.id).where(
                    M.id.in_(chunk),
                    M.realm_id == user.realm_id,
                    M.stream_id.in_(history_streams),
                )
            )
        )
    return readable


def update_flags(
    conn: Conn,
    user: User,
    op: str,
    flag: str,
    message_ids: Sequence[int],
    *,
    known: dict[int, int | None] | None = None,
) -> Outcome[list[int]]:
    """Add or remove a flag; the ids whose flag changed.

    `known` (from a narrow, which only yields messages the user may read) gives each message's
    current flags, None where the user has no delivery row; it saves reading them again.
    """
    check_flag_operation(flag, op)
    ids = sorted(set(message_ids))
    if known is None:
        current: dict[int, int | None] = dict.fromkeys(ids)
        for chunk in _chunks(ids):
            for r in conn.all(
                sa.select(UM.message_id, UM.flags).where(
                    UM.user_id == user.id, UM.message_id.in_(chunk)
                )
            ):
                current[int(r["message_id"])] = int(r["flags"])
        if _archived_ids(conn, user, ids):
            raise ChatError("Invalid message(s)")
    else:
        current = known
    missing = [mid for mid in ids if current[mid] is None]
    if missing:
        if known is None and _readable_without_row(conn, user, missing) != set(missing):
            raise ChatError("Invalid message(s)")
        conn.executemany(
            sa.insert(schema.user_message).values(
                user_id=sa.bindparam("uid"),
                message_id=sa.bindparam("mid"),
                flags=sa.bindparam("bits"),
            ),
            [{"uid": user.id, "mid": mid, "bits": HISTORICAL_FLAGS} for mid in missing],
        )
    bit = flags.BIT[flag]
    bits = {
        mid: HISTORICAL_FLAGS if current[mid] is None else int(current[mid] or 0) for mid in ids
    }
    if op == "add":
        changed = [mid for mid in ids if not bits[mid] & bit]
        new_value = UM.flags.op("|")(bit)
    else:
        changed = [mid for mid in ids if bits[mid] & bit]
        new_value = UM.flags.op("&")(~bit & ((1 << 62) - 1))
    for chunk in _chunks(changed):
        conn.execute(
            sa.update(schema.user_message)
            .where(UM.user_id == user.id, _among(conn, chunk))
            .values(flags=new_value)
        )
    changed.sort()
    notices = []
    if changed:
        event: dict[str, Any] = {
            "type": "update_message_flags",
            "op": op,
            "operation": op,
            "flag": flag,
            "messages": changed,
            "all": False,
        }
        if op == "remove" and flag == "read":
            event["message_details"] = _message_details(conn, user, changed)
        notices.append(Notice(event, [user.id]))
    return Outcome(changed, notices)


def _message_details(conn: Conn, user: User, ids: Sequence[int]) -> dict[str, Any]:
    """What a client needs to put messages back into its unread counts (Zulip's message_details)."""
    details: dict[str, Any] = {}
    huddle_members: dict[int, list[int]] = {}
    personal: dict[int, int] = {}
    for chunk in _chunks(list(ids)):
        rows = conn.all(
            sa.select(M.id, M.stream_id, M.topic, M.recipient_id, M.sender_id, UM.flags)
            .select_from(schema.message.join(schema.user_message, UM.message_id == M.id))
            .where(M.id.in_(chunk), UM.user_id == user.id)
        )
        for row in rows:
            entry: dict[str, Any]
            if row["stream_id"] is not None:
                entry = {"type": "stream", "stream_id": row["stream_id"], "topic": row["topic"]}
            else:
                rid = row["recipient_id"]
                if rid not in personal and rid not in huddle_members:
                    r = conn.one(sa.select(schema.recipient).where(schema.recipient.c.id == rid))
                    assert r is not None
                    if r["type"] == schema.RECIPIENT_PERSONAL:
                        personal[rid] = r["type_id"]
                    else:
                        huddle_members[rid] = list(
                            conn.scalars(
                                sa.select(schema.huddle_member.c.user_id)
                                .join(
                                    schema.huddle,
                                    schema.huddle.c.id == schema.huddle_member.c.huddle_id,
                                )
                                .where(schema.huddle.c.recipient_id == rid)
                            )
                        )
                if rid in personal:
                    others = {personal[rid], row["sender_id"]} - {user.id}
                else:
                    others = set(huddle_members[rid]) - {user.id}
                entry = {"type": "private", "user_ids": sorted(others)}
            if row["flags"] & flags.MENTIONED:
                entry["mentioned"] = True
            details[str(row["id"])] = entry
    return details


def clamp_window(num_before: int, num_after: int) -> tuple[int, int]:
    """Zulip's bound on one flags/narrow transaction: at most 5,000 messages."""
    num_before = min(
        num_before, max(MAX_MESSAGES_PER_UPDATE - num_after, MAX_MESSAGES_PER_UPDATE // 2)
    )
    num_after = min(num_after, MAX_MESSAGES_PER_UPDATE - num_before)
    return num_before, num_after


def update_flags_for_narrow(
    conn: Conn,
    user: User,
    terms: Sequence[Term],
    anchor: int | str,
    include_anchor: bool,
    num_before: int,
    num_after: int,
    op: str,
    flag: str,
) -> Outcome[dict[str, Any]]:
    check_flag_operation(flag, op)
    num_before, num_after = clamp_window(num_before, num_after)
    window = window_rows(
        conn, user, terms, anchor, num_before, num_after, include_anchor, ids_only=True
    )
    ids = [int(row["id"]) for row in window.rows]
    known = {int(row["id"]): row["user_flags"] for row in window.rows}
    outcome = update_flags(conn, user, op, flag, ids, known=known)
    return Outcome(
        {
            "processed_count": len(ids),
            "updated_count": len(outcome.value),
            "first_processed_id": ids[0] if ids else None,
            "last_processed_id": ids[-1] if ids else None,
            "found_oldest": window.found_oldest,
            "found_newest": window.found_newest,
        },
        outcome.notices,
    )


def _mark_read(conn: Conn, user: User, condition: Any) -> Outcome[list[int]]:
    unread = sa.and_(UM.user_id == user.id, UM.flags.op("&")(flags.READ) == 0)
    ids = [
        int(i)
        for i in conn.scalars(
            sa.select(UM.message_id)
            .select_from(schema.user_message.join(schema.message, M.id == UM.message_id))
            .where(unread, condition)
            .order_by(UM.message_id)
        )
    ]
    for chunk in _chunks(ids):
        conn.execute(
            sa.update(schema.user_message)
            .where(UM.user_id == user.id, UM.message_id.in_(chunk))
            .values(flags=UM.flags.op("|")(flags.READ))
        )
    return Outcome(ids)


def mark_all_as_read(conn: Conn, user: User) -> Outcome[int]:
    outcome = _mark_read(conn, user, sa.true())
    event = {
        "type": "update_message_flags",
        "op": "add",
        "operation": "add",
        "flag": "read",
        "messages": outcome.value,
        "all": True,
    }
    return Outcome(len(outcome.value), [Notice(event, [user.id])])


def _readable_stream(conn: Conn, user: User, stream_id: int) -> Any:
    stream = stream_queries.stream_by_id(conn, user.realm_id, stream_id)
    if stream is None:
        raise ChatError("Invalid stream ID")
    subscribed = stream_queries.active_subscription(conn, user.id, stream_id) is not None
    if not stream_queries.can_read_stream(user, stream, subscribed):
        raise ChatError("Invalid stream ID")
    return stream


def mark_stream_as_read(conn: Conn, user: User, stream_id: int) -> Outcome[int]:
    _readable_stream(conn, user, stream_id)
    outcome = _mark_read(conn, user, M.stream_id == stream_id)
    return Outcome(len(outcome.value), _read_notices(user, outcome.value))


def mark_topic_as_read(conn: Conn, user: User, stream_id: int, topic: str) -> Outcome[int]:
    _readable_stream(conn, user, stream_id)
    in_topic = sa.and_(
        M.stream_id == stream_id, sa.func.lower(M.topic) == sa.func.lower(sa.literal(topic))
    )
    exists = conn.scalar(
        sa.select(UM.message_id)
        .select_from(schema.user_message.join(schema.message, M.id == UM.message_id))
        .where(UM.user_id == user.id, in_topic)
        .limit(1)
    )
    if exists is None:
        raise ChatError(f"No such topic '{topic}'")
    outcome = _mark_read(conn, user, in_topic)
    return Outcome(len(outcome.value), _read_notices(user, outcome.value))


def _read_notices(user: User, ids: list[int]) -> list[Notice]:
    if not ids:
        return []
    event = {
        "type": "update_message_flags",
        "op": "add",
        "operation": "add",
        "flag": "read",
        "messages": ids,
        "all": False,
    }
    return [Notice(event, [user.id])]
