"""GET /users/me/{stream_id}/topics and POST /streams/{stream_id}/delete_topic."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.topic_deletion import delete_topic
from atrium.chat.guards import realm_admin
from atrium.chat.http import ApiRequest
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.topics import topic_history
from atrium.chat.typed_endpoint import PathOnly, typed_endpoint
from atrium.core.db import Conn


@typed_endpoint
async def get_topics(req: ApiRequest, *, stream_id: PathOnly[int]) -> dict[str, Any]:
    def read(conn: Conn) -> list[dict[str, Any]]:
        stream, _sub = stream_queries.stream_for_reading(
            conn, req.me, stream_id, allow_realm_admin=False
        )
        return topic_history(
            conn,
            req.me.id,
            stream["id"],
            public_history=bool(stream["history_public_to_subscribers"]),
        )

    return {"topics": await req.runtime.db.read(read)}


@typed_endpoint(guard=realm_admin)
async def delete(req: ApiRequest, *, stream_id: PathOnly[int], topic_name: str) -> dict[str, Any]:
    await req.runtime.write(delete_topic, req.me, stream_id, topic_name)
    return {}
