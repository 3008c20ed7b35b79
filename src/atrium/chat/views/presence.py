"""POST /users/me/presence, GET /users/{user}/presence, GET /realm/presence."""

from __future__ import annotations

import time
from typing import Any

from atrium.chat.actions.presence import needs_write, record_presence
from atrium.chat.errors import ChatError, no_such_user
from atrium.chat.http import ApiRequest
from atrium.chat.queries import users as user_queries
from atrium.chat.queries.presence import realm_presences, stored_presence, user_presence
from atrium.chat.typed_endpoint import Json, UserPath, typed_endpoint
from atrium.core.db import Conn


@typed_endpoint
async def update_own(
    req: ApiRequest,
    *,
    status: str,
    ping_only: Json[bool] = False,
    new_user_input: Json[bool] = False,
    slim_presence: Json[bool] = False,
) -> dict[str, Any]:
    if status not in ("active", "idle"):
        raise ChatError(f"Invalid status: {status}")
    now = time.time()
    active = status == "active"

    def check(conn: Conn) -> bool:
        enabled = user_queries.user_row(conn, req.me.realm_id, req.me.id)["presence_enabled"]
        return bool(enabled) and needs_write(stored_presence(conn, req.me.id), active, now)

    # Most heartbeats of a client that polls more often than the stored times need refreshing
    # only read; the rest take the writer for one row.
    if await req.runtime.db.read(check):
        await req.runtime.write(record_presence, req.me, active, now)
    if ping_only:
        return {}
    slim = slim_presence
    presences = await req.runtime.db.read(
        lambda conn: realm_presences(conn, req.me.realm_id, slim=slim, now=now)
    )
    return {"presences": presences, "server_timestamp": now}


@typed_endpoint
async def get_for_user(req: ApiRequest, *, user: UserPath) -> dict[str, Any]:
    key: int | str = user
    now = time.time()

    def read(conn: Conn) -> dict[str, Any]:
        if isinstance(key, int):
            row = user_queries.user_row(conn, req.me.realm_id, key)
        else:
            row = user_queries.user_row_by_email(conn, req.me.realm_id, key)
        if row is None:
            raise no_such_user()
        if row["is_bot"]:
            raise ChatError("Presence is not supported for bot users.")
        presence = user_presence(conn, req.me.realm_id, row["id"], now)
        if presence is None:
            raise ChatError(f"No presence data for {key}")
        # This endpoint shows only status and time, as Zulip's does.
        return {
            name: {"status": entry["status"], "timestamp": entry["timestamp"]}
            for name, entry in presence.items()
        }

    return {"presence": await req.runtime.db.read(read)}


@typed_endpoint
async def get_realm(req: ApiRequest) -> dict[str, Any]:
    now = time.time()
    presences = await req.runtime.db.read(
        lambda conn: realm_presences(conn, req.me.realm_id, slim=False, now=now)
    )
    return {"presences": presences, "server_timestamp": now}
