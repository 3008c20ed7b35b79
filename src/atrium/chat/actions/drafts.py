"""Server-side drafts (GET/POST /drafts, PATCH/DELETE /drafts/{id}) and their `drafts` events.

A draft is addressed loosely: to nobody (type ""), to one stream, or to some users. Zulip's rules:
a stream draft names exactly one stream the user can access, users must exist, topic and content
must not contain null bytes, the timestamp (of the last edit) is filled by the server when absent,
and every operation is refused when the user turned `enable_drafts_synchronization` off. Events go
to the owner only, so that the user's other clients stay in step.
"""

from __future__ import annotations

import time
from typing import Any, Literal

import orjson
import pydantic
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.messages import normalize_content, truncate
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.limits import MAX_TOPIC_LENGTH
from atrium.chat.models import User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.drafts import check_sync_enabled, draft_dict, draft_not_found
from atrium.core.db import Conn

D = schema.draft.c
U = schema.user.c


class DraftData(pydantic.BaseModel):
    """One draft as clients send it (unknown keys are refused, as in Zulip)."""

    model_config = pydantic.ConfigDict(extra="forbid")

    type: Literal["", "stream", "private"]
    to: list[int]
    topic: str
    content: str
    timestamp: int | float | None = None


def _validated(conn: Conn, user: User, draft: DraftData) -> dict[str, Any]:
    """The stored columns of a valid draft."""
    content = normalize_content(draft.content)
    timestamp = time.time() if draft.timestamp is None else float(draft.timestamp)
    if timestamp < 0:
        raise ChatError("Timestamp must not be negative.")
    topic = ""
    to: list[int] = []
    if draft.type == "stream":
        topic = truncate(draft.topic, MAX_TOPIC_LENGTH, "...")
        if "\x00" in topic:
            raise ChatError("Topic must not contain null bytes")
        if len(draft.to) != 1:
            raise ChatError("Must specify exactly 1 stream ID for stream messages")
        stream = stream_queries.stream_by_id(conn, user.realm_id, draft.to[0])
        subscribed = (
            stream is not None
            and stream_queries.active_subscription(conn, user.id, stream["id"]) is not None
        )
        if stream is None or not stream_queries.can_read_stream(user, stream, subscribed):
            raise ChatError("Invalid stream ID")
        to = [stream["id"]]
    elif draft.type == "private" and draft.to:
        for user_id in sorted(set(draft.to)):
            found = conn.scalar(
                sa.select(U.id).where(
                    U.id == user_id, U.realm_id == user.realm_id, U.is_active.is_(True)
                )
            )
            if found is None:
                raise ChatError(f"Invalid user ID {user_id}")
            to.append(user_id)
    return {
        "type": draft.type,
        "to_ids": orjson.dumps(to).decode(),
        "topic": topic,
        "content": content,
        "last_edit_time": timestamp,
    }


def create_drafts(conn: Conn, user: User, drafts: list[DraftData]) -> Outcome[list[int]]:
    check_sync_enabled(conn, user)
    rows = [_validated(conn, user, draft) for draft in drafts]
    ids = [
        int(conn.scalar(sa.insert(schema.draft).values(user_id=user.id, **row).returning(D.id)))
        for row in rows
    ]
    created = [draft_dict({"id": i, **row}) for i, row in zip(ids, rows, strict=True)]
    notices = [Notice({"type": "drafts", "op": "add", "drafts": created}, [user.id])] if ids else []
    return Outcome(ids, notices)


def _own_draft(conn: Conn, user: User, draft_id: int) -> Any:
    row = conn.one(sa.select(schema.draft).where(D.id == draft_id, D.user_id == user.id))
    if row is None:
        raise draft_not_found()
    return row


def edit_draft(conn: Conn, user: User, draft_id: int, draft: DraftData) -> Outcome[None]:
    check_sync_enabled(conn, user)
    _own_draft(conn, user, draft_id)
    row = _validated(conn, user, draft)
    conn.execute(sa.update(schema.draft).where(D.id == draft_id).values(**row))
    event = {"type": "drafts", "op": "update", "draft": draft_dict({"id": draft_id, **row})}
    return Outcome(None, [Notice(event, [user.id])])


def delete_draft(conn: Conn, user: User, draft_id: int) -> Outcome[None]:
    check_sync_enabled(conn, user)
    _own_draft(conn, user, draft_id)
    conn.execute(sa.delete(schema.draft).where(D.id == draft_id))
    return Outcome(
        None, [Notice({"type": "drafts", "op": "remove", "draft_id": draft_id}, [user.id])]
    )
