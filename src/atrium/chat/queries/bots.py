"""Reading bots: the bot objects of GET /bots, register's `realm_bots` and `realm_bot` events."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import User
from atrium.chat.queries.users import admin_user_ids, avatar_url
from atrium.core.db import Conn

U = schema.user.c
B = schema.bot_settings.c
S = schema.stream.c


def _stream_name(conn: Conn, stream_id: int | None) -> str | None:
    if stream_id is None:
        return None
    name: str | None = conn.scalar(sa.select(S.name).where(S.id == stream_id))
    return name


def bot_dict(conn: Conn, row: Any) -> dict[str, Any]:
    """Zulip's Bot object (for those who administer the bot: it carries the API key)."""
    settings = conn.one(sa.select(schema.bot_settings).where(B.user_id == row["id"]))
    return {
        "email": row["email"],
        "user_id": row["id"],
        "full_name": row["full_name"],
        "bot_type": row["bot_type"],
        "is_active": bool(row["is_active"]),
        "api_key": row["api_key"],
        "default_sending_stream": _stream_name(
            conn, settings["default_sending_stream_id"] if settings else None
        ),
        "default_events_register_stream": _stream_name(
            conn, settings["default_events_register_stream_id"] if settings else None
        ),
        "default_all_public_streams": bool(
            settings["default_all_public_streams"] if settings else False
        ),
        "avatar_url": avatar_url(row, client_gravatar=False),
        "owner_id": row["bot_owner_id"],
        "services": [
            {"base_url": r["base_url"], "interface": r["interface"], "token": r["token"]}
            for r in conn.all(
                sa.select(schema.bot_service)
                .where(schema.bot_service.c.user_id == row["id"])
                .order_by(schema.bot_service.c.id)
            )
        ],
    }


def administered_bot_rows(conn: Conn, user: User) -> list[Any]:
    """The bots `user` may administer: every bot for an administrator, else the user's own."""
    query = sa.select(schema.user).where(U.realm_id == user.realm_id, U.is_bot.is_(True))
    if not user.is_admin:
        query = query.where(U.bot_owner_id == user.id)
    return conn.all(query.order_by(U.id))


def realm_bot_dicts(conn: Conn, user: User) -> list[dict[str, Any]]:
    return [bot_dict(conn, row) for row in administered_bot_rows(conn, user)]


def bot_administrator_ids(conn: Conn, bot: Any) -> list[int]:
    """Who hears `realm_bot` events about a bot: the realm's administrators and its owner."""
    ids = set(admin_user_ids(conn, bot["realm_id"]))
    if bot["bot_owner_id"] is not None:
        ids.add(bot["bot_owner_id"])
    return sorted(ids)


def owned_bot_infos(conn: Conn, owner: User) -> list[dict[str, Any]]:
    """GET /bots: the caller's own active bots, in Zulip's older `bot_info` shape."""
    rows = conn.all(
        sa.select(schema.user)
        .where(U.bot_owner_id == owner.id, U.is_bot.is_(True), U.is_active.is_(True))
        .order_by(U.date_joined, U.id)
    )
    out = []
    for row in rows:
        bot = bot_dict(conn, row)
        out.append(
            {
                "username": row["email"],
                "full_name": row["full_name"],
                "api_key": row["api_key"],
                "avatar_url": bot["avatar_url"],
                "default_sending_stream": bot["default_sending_stream"],
                "default_events_register_stream": bot["default_events_register_stream"],
                "default_all_public_streams": bot["default_all_public_streams"],
                "owner": owner.email,
            }
        )
    return out
