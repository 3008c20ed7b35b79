"""GET /users/{id}/subscriptions/{stream_id}: is a user subscribed to a stream the asker may see?"""

from __future__ import annotations

from atrium.chat.errors import ChatError, no_such_user
from atrium.chat.models import User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.users import user_row
from atrium.core.db import Conn


def is_subscribed(conn: Conn, viewer: User, user_id: int, stream_id: int) -> bool:
    if user_row(conn, viewer.realm_id, user_id) is None:
        raise no_such_user()
    stream = stream_queries.stream_by_id(conn, viewer.realm_id, stream_id)
    viewer_subscribed = (
        stream is not None
        and stream_queries.active_subscription(conn, viewer.id, stream_id) is not None
    )
    if stream is None or not stream_queries.can_see_stream(viewer, stream, viewer_subscribed):
        raise ChatError("Invalid stream ID")
    return stream_queries.active_subscription(conn, user_id, stream_id) is not None
