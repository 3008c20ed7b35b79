"""What the wiki's pages may show of a service composed beside it (the chat), through functions
handed to the wiki's database (`Database.services`) by whoever composes them: the wiki never
imports the chat. Each is absent when the wiki runs alone, and its part of the page with it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from atrium.core.db import Database
from atrium.wiki.titles import Title

# The chat's home (the top bar's "Chat" link).
CHAT_HOME = "chat_home"
# Messages matching a search, for a viewer (a wiki user id; None: anonymous), only those the
# viewer's chat user may read.
CHAT_SEARCH = "chat_search"
# A page's chat topic: its link and, for a reader who may read its stream, its message count.
CHAT_TOPIC = "chat_topic"
# The workspace's settings (discussion stream, feed rules), for the chat's administrators.
WORKSPACE_SETTINGS = "workspace_settings"


@dataclass(frozen=True)
class ChatMessageHit:
    heading: str  # "stream > topic"
    href: str
    sender: str
    text: str  # plain text; the template escapes it


@dataclass(frozen=True)
class ChatTopicLink:
    href: str
    count: int | None  # None: the reader may not read the stream, or is no chat user


@dataclass(frozen=True)
class SettingsScreen:
    """What `Special:WorkspaceSettings` shows an administrator."""

    streams: Sequence[tuple[int, str]]  # the streams they may choose, by id
    discussion_stream_id: int  # 0: none
    rules: Sequence[tuple[int, str]]  # each feed rule's id and a line describing it
    scopes: Sequence[str]
    events: Sequence[str]


class WorkspaceSettings(Protocol):
    async def screen(self, wiki_user_id: int) -> SettingsScreen | None:
        """The settings, or None when the viewer is no administrator of the chat."""
        ...

    async def change(
        self, wiki_user_id: int, form: Mapping[str, str], events: Sequence[str]
    ) -> str:
        """Apply one posted form (`wpAction`: discussion, add or remove); "" when done, else
        the error to show. Refused to anyone `screen` answers None for."""
        ...


# Each is given the viewer's wiki user id (None: an anonymous reader).
ChatSearch = Callable[[int | None, str, int], Awaitable[list[ChatMessageHit]]]
ChatTopic = Callable[[int | None, str, Title], Awaitable[ChatTopicLink | None]]


def chat_home(db: Database) -> str | None:
    home = db.services.get(CHAT_HOME)
    return home if isinstance(home, str) else None


def chat_search(db: Database) -> ChatSearch | None:
    found: ChatSearch | None = db.services.get(CHAT_SEARCH)
    return found


def chat_topic(db: Database) -> ChatTopic | None:
    found: ChatTopic | None = db.services.get(CHAT_TOPIC)
    return found


def workspace_settings(db: Database) -> WorkspaceSettings | None:
    found: WorkspaceSettings | None = db.services.get(WORKSPACE_SETTINGS)
    return found
