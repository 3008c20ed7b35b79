"""Reading custom emoji: the realm_emoji objects of GET /realm/emoji and register, and the
name -> image URL map the renderer needs."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn, Prepared

E = schema.realm_emoji.c

_ACTIVE = Prepared(
    sa.select(E.id, E.name, E.file_ext).where(
        E.realm_id == sa.bindparam("realm_id"), E.deactivated.is_(False)
    )
)


def emoji_url(realm_id: int, emoji_id: int, file_ext: str) -> str:
    return f"/user_avatars/{realm_id}/emoji/images/{emoji_id}.{file_ext}"


def emoji_dict(row: Any) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "name": row["name"],
        "source_url": emoji_url(row["realm_id"], row["id"], row["file_ext"]),
        "deactivated": bool(row["deactivated"]),
        "author_id": row["author_id"],
        "still_url": None,
    }


def realm_emoji_dicts(conn: Conn, realm_id: int) -> dict[str, dict[str, Any]]:
    """Every custom emoji ever added, deactivated ones included (messages still show them)."""
    rows = conn.all(sa.select(schema.realm_emoji).where(E.realm_id == realm_id).order_by(E.id))
    return {str(row["id"]): emoji_dict(row) for row in rows}


def active_emoji_urls(conn: Conn, realm_id: int) -> dict[str, str]:
    return {
        row["name"]: emoji_url(realm_id, row["id"], row["file_ext"])
        for row in conn.all(_ACTIVE, {"realm_id": realm_id})
    }


def active_emoji_by_name(conn: Conn, realm_id: int, name: str) -> Any:
    return conn.one(
        sa.select(schema.realm_emoji).where(
            E.realm_id == realm_id, E.name == name, E.deactivated.is_(False)
        )
    )
