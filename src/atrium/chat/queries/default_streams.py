"""The realm's default streams, for the initial state and `default_streams` events."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.queries import streams as stream_queries
from atrium.core.db import Conn

D = schema.default_stream.c


def default_stream_dicts(conn: Conn, realm_id: int) -> list[dict[str, Any]]:
    """The `realm_default_streams` state and the payload of `default_streams` events."""
    rows = conn.all(
        sa.select(schema.stream)
        .join(schema.default_stream, D.stream_id == schema.stream.c.id)
        .where(D.realm_id == realm_id, schema.stream.c.deactivated.is_(False))
        .order_by(sa.func.lower(schema.stream.c.name))
    )
    # A BasicStream in Zulip's terms: without the subscriber-facing weekly traffic figure.
    out = []
    for row in rows:
        stream = stream_queries.stream_dict(row)
        stream.pop("stream_weekly_traffic")
        out.append(stream)
    return out
