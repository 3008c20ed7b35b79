"""Each wiki page's chat topic: in the stream the organization chose for discussing pages
(the `discussion_stream_id` workspace setting), the topic named after the page.

The Chat tab shows its message count only to someone who may read that stream: the wiki viewer's
chat user, found through the workspace identity (`people.chat_user_of`).
"""

from __future__ import annotations

import sqlalchemy as sa

from atrium.chat import schema as chat_schema
from atrium.chat.markdown.mentions import hash_util_encode
from atrium.chat.models import User
from atrium.chat.queries.streams import active_subscription, can_read_stream
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn, Database
from atrium.wiki.titles import Title
from atrium.wiki.web.neighbours import ChatTopic, ChatTopicLink
from atrium.workspace.bridge import store
from atrium.workspace.bridge.feed_messages import MAX_TOPIC_CHARS
from atrium.workspace.bridge.people import chat_user_of

DISCUSSION_STREAM = "discussion_stream_id"
M = chat_schema.message.c
UM = chat_schema.user_message.c
S = chat_schema.stream.c


def page_topic(page_title: str) -> str:
    """The topic of a page (Zulip's topics are at most 60 characters)."""
    if len(page_title) <= MAX_TOPIC_CHARS:
        return page_title
    return page_title[: MAX_TOPIC_CHARS - 1] + "…"


def topic_href(stream_id: int, topic: str) -> str:
    # By id alone: the stream's name is not everyone's to know.
    return f"/#narrow/stream/{stream_id}/topic/{hash_util_encode(topic)}"


def _readable_count(conn: Conn, user: User, stream_id: int, topic: str) -> int | None:
    stream = conn.one(sa.select(chat_schema.stream).where(S.id == stream_id))
    if stream is None or stream["deactivated"] or stream["realm_id"] != user.realm_id:
        return None
    subscribed = active_subscription(conn, user.id, stream_id) is not None
    if not can_read_stream(user, stream, subscribed):
        return None
    in_topic = sa.and_(M.stream_id == stream_id, sa.func.lower(M.topic) == topic.lower())
    if stream["invite_only"] and not stream["history_public_to_subscribers"]:
        # Only what they received: a private stream's earlier history is not theirs.
        query = (
            sa.select(sa.func.count())
            .select_from(chat_schema.user_message.join(chat_schema.message, M.id == UM.message_id))
            .where(in_topic, UM.user_id == user.id)
        )
    else:
        query = sa.select(sa.func.count()).select_from(chat_schema.message).where(in_topic)
    return int(conn.scalar(query))


async def chat_user_may_read_stream(
    chat: ChatRuntime, chat_user: User, stream_id: int, topic: str
) -> int | None:
    """The count of the topic's messages this chat user may read, or None when they may not
    read the stream at all."""
    return await chat.db.read(_readable_count, chat_user, stream_id, topic)


def chat_topic_for_wiki(chat: ChatRuntime, bridge_db: Database) -> ChatTopic:
    """What the wiki's skin asks for each page's Chat tab."""

    async def topic_of(
        wiki_user_id: int | None, page_title: str, title: Title
    ) -> ChatTopicLink | None:
        setting = await bridge_db.read(store.setting, DISCUSSION_STREAM)
        if setting is None or not setting.isdigit():
            return None
        stream_id = int(setting)
        topic = page_topic(page_title)
        user = await chat_user_of(chat, wiki_user_id)
        count = None
        if user is not None:
            count = await chat_user_may_read_stream(chat, user, stream_id, topic)
        return ChatTopicLink(topic_href(stream_id, topic), count)

    return topic_of
