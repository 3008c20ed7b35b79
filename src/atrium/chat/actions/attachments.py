"""Uploaded files as records: creating one, linking it to the messages that mention it, deleting it.

The bytes are already in the blob store when these run (the view streams them there first); a
row names them by their SHA-256. `attachment` events go to the file's owner only, and a linking
message appears in them only when the owner may read that message, so that nobody learns of a
message through an attachment event.
"""

from __future__ import annotations

import re
import secrets
import time
import unicodedata
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries.attachments import (
    attachment_dict,
    can_read_attachment,
    upload_space_used,
)
from atrium.chat.queries.messages import readable_message
from atrium.core.db import Conn

A = schema.attachment.c
AM = schema.attachment_message.c
U = schema.user.c

# An upload link in message content, absolute or relative: /user_uploads/<realm>/<xx>/<random>/<name>.
_UPLOAD_LINK = re.compile(r"/user_uploads/(\d+/[0-9a-f]{1,2}/[A-Za-z0-9_-]+/[^\s)\]>\"'`]+)")


def sanitize_name(value: str) -> str:
    """Zulip's file-name rule: word characters, dots and dashes; runs of spaces become one dash."""
    value = unicodedata.normalize("NFKC", value)
    value = re.sub(r"[^\w\s.-]", "", value).strip()
    value = re.sub(r"[-\s]+", "-", value)
    if value in {"", ".", ".."}:
        return "uploaded-file"
    return value


def new_path_id(realm_id: int, file_name: str) -> str:
    return "/".join(
        (
            str(realm_id),
            format(secrets.randbelow(256), "x"),
            secrets.token_urlsafe(18),
            sanitize_name(file_name),
        )
    )


def _owner(conn: Conn, owner_id: int) -> User:
    row = conn.one(sa.select(schema.user).where(U.id == owner_id))
    assert row is not None
    return User.from_row(row)


def attachment_notice(conn: Conn, op: str, row: Any, owner: User) -> Notice:
    event = {
        "type": "attachment",
        "op": op,
        "attachment": attachment_dict(conn, row, owner) if op != "remove" else {"id": row["id"]},
        "upload_space_used": upload_space_used(conn, owner.realm_id),
    }
    return Notice(event, [owner.id])


def create_attachment(
    conn: Conn, owner: User, file_name: str, sha256: str, size: int, content_type: str
) -> Outcome[str]:
    """Record an upload stored under `sha256`; its path id (the URL after /user_uploads/)."""
    path_id = new_path_id(owner.realm_id, file_name)
    attachment_id = conn.scalar(
        sa.insert(schema.attachment)
        .values(
            realm_id=owner.realm_id,
            owner_id=owner.id,
            file_name=file_name,
            path_id=path_id,
            sha256=sha256,
            content_type=content_type,
            size=size,
            create_time=time.time(),
        )
        .returning(A.id)
    )
    row = conn.one(sa.select(schema.attachment).where(A.id == attachment_id))
    return Outcome(path_id, [attachment_notice(conn, "add", row, owner)])


def link_attachments(conn: Conn, sender: User, message_id: int, content: str) -> list[Notice]:
    """Link the uploads a message's content mentions and the sender may read (Zulip's
    do_claim_attachments); set `has_attachment`. Replaces the message's previous links."""
    previous = conn.all(
        sa.select(schema.attachment)
        .join(schema.attachment_message, AM.attachment_id == A.id)
        .where(AM.message_id == message_id)
    )
    conn.execute(sa.delete(schema.attachment_message).where(AM.message_id == message_id))
    linked: list[Any] = []
    for path_id in dict.fromkeys(_UPLOAD_LINK.findall(content)):
        row = conn.one(
            sa.select(schema.attachment).where(A.path_id == path_id, A.realm_id == sender.realm_id)
        )
        if row is None or not can_read_attachment(conn, sender, row):
            continue  # a link to a file the sender cannot read grants nothing
        conn.execute(
            sa.insert(schema.attachment_message).values(
                attachment_id=row["id"], message_id=message_id
            )
        )
        linked.append(row)
    conn.execute(
        sa.update(schema.message)
        .where(schema.message.c.id == message_id)
        .values(has_attachment=bool(linked))
    )
    changed = {row["id"]: row for row in [*previous, *linked]}  # dropped links count too
    return _update_notices(conn, list(changed.values()), message_id)


def _update_notices(conn: Conn, rows: list[Any], message_id: int) -> list[Notice]:
    """`update` events for the owners who may read the message that changed the links; an
    owner who may not read it hears nothing, so the event cannot reveal the message."""
    notices = []
    for row in rows:
        owner = _owner(conn, row["owner_id"])
        if readable_message(conn, owner, message_id) is not None:
            notices.append(attachment_notice(conn, "update", row, owner))
    return notices


def unlink_message(conn: Conn, message_id: int) -> list[Notice]:
    """A deleted message no longer links anything; each owner hears of the change."""
    rows = conn.all(
        sa.select(schema.attachment)
        .join(schema.attachment_message, AM.attachment_id == A.id)
        .where(AM.message_id == message_id)
    )
    # Who may read the message is decided before anything about it is deleted.
    owners = [_owner(conn, row["owner_id"]) for row in rows]
    told = [readable_message(conn, owner, message_id) is not None for owner in owners]
    conn.execute(sa.delete(schema.attachment_message).where(AM.message_id == message_id))
    return [
        attachment_notice(conn, "update", row, owner)
        for row, owner, tell in zip(rows, owners, told, strict=True)
        if tell
    ]


def remove_attachment(conn: Conn, actor: User, attachment_id: int) -> Outcome[str]:
    """DELETE /attachments/{id}: the owner's own files only; the removed content's hash."""
    row = conn.one(
        sa.select(schema.attachment).where(A.id == attachment_id, A.owner_id == actor.id)
    )
    if row is None:
        raise ChatError("Invalid attachment")
    conn.execute(sa.delete(schema.attachment_message).where(AM.attachment_id == attachment_id))
    conn.execute(sa.delete(schema.attachment).where(A.id == attachment_id))
    return Outcome(row["sha256"], [attachment_notice(conn, "remove", row, actor)])
