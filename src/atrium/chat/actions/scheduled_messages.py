"""Scheduled messages: create, list, edit, delete, and their delivery.

Zulip's rules: a stream message names its stream by id (`STREAM_DOES_NOT_EXIST` with
`stream_id` otherwise), a direct message names existing users, the same content and topic rules
as sending apply, and the delivery time must be in the future. Delivery (`deliver_next`) takes one
due row at a time, on PostgreSQL with `FOR UPDATE SKIP LOCKED` so that several workers never send
the same row; a send that fails (the stream is gone, the sender lost permission…) marks the row
`failed` with Zulip's failure message, and the Notification Bot tells the sender.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from typing import Any

import orjson
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions import notification_bot
from atrium.chat.actions.messages import (
    SendRequest,
    check_can_post,
    normalize_content,
    normalize_topic,
    resolve_dm_recipients,
    send_message,
)
from atrium.chat.errors import ChatError, stream_id_does_not_exist
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.scheduled_messages import scheduled_dict
from atrium.chat.rendering import Prerendered, render_message
from atrium.core.db import Conn

SM = schema.scheduled_message.c
U = schema.user.c

MESSAGE_TYPES = ("stream", "direct", "private")


def not_found() -> ChatError:
    return ChatError("Scheduled message does not exist", status=404)


def in_future(deliver_at: float, now: float) -> None:
    if deliver_at <= now:
        raise ChatError("Scheduled delivery time must be in the future.")


@dataclass(frozen=True)
class ScheduleRequest:
    type: str
    to: Any
    content: str
    topic: str | None
    deliver_at: float
    client: str
    # The content's rendering, made before the write off the event loop (`prerender_content`).
    prerendered: Prerendered | None = None


def _stream_id(to: Any) -> int:
    if isinstance(to, list) and len(to) == 1:
        to = to[0]
    if isinstance(to, bool) or not isinstance(to, int):
        raise ChatError("Invalid stream ID")
    return to


def _addressed(
    conn: Conn, sender: User, kind: str, to: Any, topic: str | None, content: str
) -> dict[str, Any]:
    """The stored columns for a message to `to`, checked as a send would check it."""
    if kind not in MESSAGE_TYPES:
        raise ChatError("Invalid message type")
    realm = load_realm(conn, sender.realm_id)
    if kind == "stream":
        stream_id = _stream_id(to)
        stream = stream_queries.stream_by_id(conn, sender.realm_id, stream_id)
        if stream is None:
            raise stream_id_does_not_exist(stream_id)
        check_can_post(conn, sender, realm, stream)
        columns = {
            "type": "stream",
            "stream_id": stream_id,
            "to_user_ids": "[]",
            "topic": normalize_topic(topic, realm),
        }
    else:
        ids = [to] if isinstance(to, int) and not isinstance(to, bool) else to
        if not isinstance(ids, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in ids
        ):
            raise ChatError("Invalid user ID")
        resolve_dm_recipients(conn, sender, realm, ids)
        columns = {
            "type": "private",
            "stream_id": None,
            "to_user_ids": orjson.dumps(sorted(set(ids))).decode(),
            "topic": "",
        }
    content = normalize_content(content)
    columns["content"] = content
    return columns


def _notice(sender: User, op: str, **fields: Any) -> Notice:
    return Notice({"type": "scheduled_messages", "op": op, **fields}, [sender.id])


def create_scheduled_message(
    conn: Conn, sender: User, request: ScheduleRequest, now: float | None = None
) -> Outcome[int]:
    in_future(request.deliver_at, time.time() if now is None else now)
    columns = _addressed(conn, sender, request.type, request.to, request.topic, request.content)
    columns["rendered_content"] = render_message(
        conn, sender, columns["content"], request.prerendered
    ).html
    row_id = int(
        conn.scalar(
            sa.insert(schema.scheduled_message)
            .values(
                realm_id=sender.realm_id,
                sender_id=sender.id,
                sending_client=request.client,
                scheduled_timestamp=request.deliver_at,
                **columns,
            )
            .returning(SM.id)
        )
    )
    row = conn.one(sa.select(schema.scheduled_message).where(SM.id == row_id))
    return Outcome(row_id, [_notice(sender, "add", scheduled_messages=[scheduled_dict(row)])])


@dataclass(frozen=True)
class ScheduleEdit:
    type: str | None = None
    to: Any = None
    content: str | None = None
    topic: str | None = None
    deliver_at: float | None = None
    prerendered: Prerendered | None = None


def _own(conn: Conn, sender: User, scheduled_id: int) -> Any:
    row = conn.one(
        sa.select(schema.scheduled_message).where(SM.id == scheduled_id, SM.sender_id == sender.id)
    )
    if row is None:
        raise not_found()
    return row


def edit_scheduled_message(
    conn: Conn, sender: User, scheduled_id: int, edit: ScheduleEdit, now: float | None = None
) -> Outcome[None]:
    """PATCH /scheduled_messages/{id} (checks of the request itself are the view's)."""
    now = time.time() if now is None else now
    row = _own(conn, sender, scheduled_id)
    if row["delivered"]:
        raise ChatError("Scheduled message was already sent")
    if row["failed"] and edit.deliver_at is None:
        raise ChatError("Scheduled delivery time must be in the future.")
    values: dict[str, Any] = {}
    if edit.type is not None or edit.to is not None or edit.content is not None:
        kind = edit.type if edit.type is not None else row["type"]
        if edit.to is not None:
            to = edit.to
        elif kind == "stream" and row["type"] == "stream":
            to = row["stream_id"]
        else:
            to = orjson.loads(row["to_user_ids"])
        topic = edit.topic if edit.topic is not None else row["topic"]
        content = edit.content if edit.content is not None else row["content"]
        values.update(_addressed(conn, sender, kind, to, topic, content))
        if edit.content is not None:  # the stored rendering still shows unchanged content
            values["rendered_content"] = render_message(
                conn, sender, values["content"], edit.prerendered
            ).html
    elif edit.topic is not None and row["type"] == "stream":
        values["topic"] = normalize_topic(edit.topic, load_realm(conn, sender.realm_id))
    if edit.deliver_at is not None:
        values["scheduled_timestamp"] = edit.deliver_at
    values["failed"] = False
    values["failure_message"] = None
    conn.execute(sa.update(schema.scheduled_message).where(SM.id == scheduled_id).values(**values))
    updated = conn.one(sa.select(schema.scheduled_message).where(SM.id == scheduled_id))
    return Outcome(None, [_notice(sender, "update", scheduled_message=scheduled_dict(updated))])


def delete_scheduled_message(conn: Conn, sender: User, scheduled_id: int) -> Outcome[None]:
    _own(conn, sender, scheduled_id)
    conn.execute(sa.delete(schema.scheduled_message).where(SM.id == scheduled_id))
    return Outcome(None, [_notice(sender, "remove", scheduled_message_id=scheduled_id)])


# --- Delivery -----------------------------------------------------------------------------------

_DUE = sa.and_(SM.delivered.is_(False), SM.failed.is_(False))


def next_due_timestamp(conn: Conn) -> float | None:
    value = conn.scalar(sa.select(sa.func.min(SM.scheduled_timestamp)).where(_DUE))
    return None if value is None else float(value)


def _oldest_due(now: float) -> sa.Select[Any]:
    return (
        sa.select(schema.scheduled_message)
        .where(_DUE, SM.scheduled_timestamp <= now)
        .order_by(SM.scheduled_timestamp, SM.id)
        .limit(1)
    )


def oldest_due_message(conn: Conn, now: float) -> tuple[User, str] | None:
    """The sender and content of the message `deliver_next` will take, so that its rendering
    can be made before that write."""
    row = conn.one(_oldest_due(now))
    if row is None:
        return None
    sender_row = conn.one(sa.select(schema.user).where(U.id == row["sender_id"]))
    return None if sender_row is None else (User.from_row(sender_row), row["content"])


def deliver_next(
    conn: Conn, now: float, prerendered: Prerendered | None = None
) -> Outcome[tuple[bool, int | None]]:
    """Send the oldest due scheduled message, if any: whether one was taken, and the id of the
    message sent (None when there was none or its delivery failed). `prerendered` is used only
    if it is the rendering of the message taken."""
    query = _oldest_due(now)
    if not conn.is_sqlite:
        # Another worker holding a row skips it instead of waiting, and never sends it twice.
        query = query.with_for_update(skip_locked=True)
    row = conn.one(query)
    if row is None:
        return Outcome((False, None))
    sender_row = conn.one(sa.select(schema.user).where(U.id == row["sender_id"]))
    assert sender_row is not None
    sender = User.from_row(sender_row)
    to: Any = row["stream_id"] if row["type"] == "stream" else orjson.loads(row["to_user_ids"])
    kind = "stream" if row["type"] == "stream" else "private"
    request = SendRequest(
        kind, to, row["content"], row["topic"], row["sending_client"], prerendered=prerendered
    )
    conn.execute("SAVEPOINT scheduled_delivery")
    try:
        if not sender.is_active:
            raise ChatError("Account is deactivated")
        sent = send_message(conn, sender, request)
    except ChatError as error:
        conn.execute("ROLLBACK TO SAVEPOINT scheduled_delivery")
        conn.execute("RELEASE SAVEPOINT scheduled_delivery")
        return Outcome((True, None), _fail(conn, sender, row, error.msg))
    conn.execute("RELEASE SAVEPOINT scheduled_delivery")
    conn.execute(
        sa.update(schema.scheduled_message)
        .where(SM.id == row["id"])
        .values(delivered=True, delivered_message_id=sent.value)
    )
    notices = [*sent.notices, _notice(sender, "remove", scheduled_message_id=row["id"])]
    return Outcome((True, sent.value), notices, sent.held_mail)


def _fail(conn: Conn, sender: User, row: Any, reason: str) -> list[Notice]:
    conn.execute(
        sa.update(schema.scheduled_message)
        .where(SM.id == row["id"])
        .values(failed=True, failure_message=reason)
    )
    updated = conn.one(sa.select(schema.scheduled_message).where(SM.id == row["id"]))
    when = dt.datetime.fromtimestamp(row["scheduled_timestamp"], dt.UTC)
    content = (
        f"The message you scheduled for <time:{when.strftime('%Y-%m-%dT%H:%M:%SZ')}> was not "
        f"sent because of the following error:\n\n> {reason}\n\n"
        "[View scheduled messages](#scheduled)"
    )
    notices = [_notice(sender, "update", scheduled_message=scheduled_dict(updated))]
    if sender.is_active:
        notices += notification_bot.send_direct(conn, sender.realm_id, sender.id, content)
    return notices
