"""GET /users/me/{stream_id}/topics and POST /streams/{stream_id}/delete_topic."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.topic_deletion import delete_topic
from atrium.chat.guards import guarded, realm_admin
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.topics import topic_history
from atrium.core.db import Conn


@api(Endpoint((Param("stream_id", path=True),)))
async def get_topics(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    def read(conn: Conn) -> list[dict[str, Any]]:
        stream, _sub = stream_queries.stream_for_reading(
            conn, req.me, args["stream_id"], allow_realm_admin=False
        )
        return topic_history(
            conn,
            req.me.id,
            stream["id"],
            public_history=bool(stream["history_public_to_subscribers"]),
        )

    return {"topics": await req.runtime.db.read(read)}


@guarded(
    realm_admin,
    Endpoint((Param("stream_id", path=True), Param("topic_name", default=REQUIRED))),
)
async def delete(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(delete_topic, req.me, args["stream_id"], args["topic_name"])
    return {}
