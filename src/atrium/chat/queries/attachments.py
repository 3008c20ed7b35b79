"""Reading uploads: who may fetch a file, and the attachment records of GET /attachments.

A file is readable by its uploader and by anyone who may read a message that links it: the rule
is the message's own (`readable_message`), so a private stream's file stays private and a
history-protected stream's file stays hidden from later subscribers.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import User
from atrium.chat.queries.messages import readable_message
from atrium.core.db import Conn

A = schema.attachment.c
AM = schema.attachment_message.c
M = schema.message.c


def attachment_by_path(conn: Conn, path_id: str) -> Any:
    return conn.one(sa.select(schema.attachment).where(A.path_id == path_id))


def linking_message_ids(conn: Conn, attachment_id: int) -> list[int]:
    return [
        int(m)
        for m in conn.scalars(
            sa.select(AM.message_id)
            .where(AM.attachment_id == attachment_id)
            .order_by(AM.message_id)
        )
    ]


def can_read_attachment(conn: Conn, user: User, attachment: Any) -> bool:
    if attachment["realm_id"] != user.realm_id:
        return False
    if attachment["owner_id"] == user.id:
        return True
    return any(
        readable_message(conn, user, message_id) is not None
        for message_id in linking_message_ids(conn, attachment["id"])
    )


def attachment_dict(conn: Conn, row: Any, owner: User) -> dict[str, Any]:
    """Zulip's attachment object; only the linking messages its owner may read are listed."""
    messages = []
    for message_id in linking_message_ids(conn, row["id"]):
        message = readable_message(conn, owner, message_id)
        if message is not None:
            messages.append({"id": message_id, "date_sent": int(message["date_sent"] * 1000)})
    return {
        "id": row["id"],
        "name": row["file_name"],
        "path_id": row["path_id"],
        "size": row["size"],
        "create_time": int(row["create_time"] * 1000),
        "messages": messages,
    }


def user_attachments(conn: Conn, owner: User) -> list[dict[str, Any]]:
    rows = conn.all(sa.select(schema.attachment).where(A.owner_id == owner.id).order_by(A.id))
    return [attachment_dict(conn, row, owner) for row in rows]


def upload_space_used(conn: Conn, realm_id: int) -> int:
    return int(
        conn.scalar(
            sa.select(sa.func.coalesce(sa.func.sum(A.size), 0)).where(A.realm_id == realm_id)
        )
    )


def blob_in_use(conn: Conn, sha256: str) -> bool:
    """Does any row still name this content (uploads, avatars, realm images, emoji)?"""
    for table in (
        schema.attachment,
        schema.user_avatar,
        schema.realm_image,
        schema.realm_emoji,
    ):
        found = conn.scalar(sa.select(sa.literal(1)).where(table.c.sha256 == sha256).limit(1))
        if found is not None:
            return True
    return False
