"""What the wiki's `Special:WorkspaceSettings` runs: the viewer's chat user, found through the
identity, must be an administrator of the chat, as for the Atrium endpoints; each change goes
through `settings_ops`, as theirs do."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema as chat_schema
from atrium.chat.errors import ChatError
from atrium.chat.models import User
from atrium.chat.queries.streams import active_subscription, can_read_stream
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn, Database
from atrium.wiki.runtime import WikiRuntime
from atrium.wiki.web.neighbours import SettingsScreen, WorkspaceSettings
from atrium.workspace.bridge import settings_ops, store
from atrium.workspace.bridge.people import chat_user_of
from atrium.workspace.bridge.store import EVENTS, SCOPES

S = chat_schema.stream.c
MAX_FIELD_CHARS = 300


def _streams(conn: Conn, user: User) -> dict[int, str]:
    """The streams this user may read, by id: the others' names are not theirs to see."""
    rows = conn.all(
        sa.select(chat_schema.stream)
        .where(S.realm_id == user.realm_id, S.deactivated.is_(False))
        .order_by(S.name)
    )
    return {
        int(row["id"]): str(row["name"])
        for row in rows
        if can_read_stream(user, row, active_subscription(conn, user.id, row["id"]) is not None)
    }


def _number(text: str, error: str) -> int:
    text = text.strip()
    if not text.isdigit() or len(text) > 12:
        raise ChatError(error)
    return int(text)


class SettingsForWiki:
    def __init__(
        self, chat: ChatRuntime, db: Database, wiki: Callable[[], WikiRuntime | None]
    ) -> None:
        self.chat = chat
        self.db = db
        self.wiki = wiki

    async def _admin(self, wiki_user_id: int) -> User | None:
        user = await chat_user_of(self.chat, wiki_user_id)
        return user if user is not None and user.is_admin else None

    async def screen(self, wiki_user_id: int) -> SettingsScreen | None:
        me = await self._admin(wiki_user_id)
        if me is None:
            return None
        streams = await self.chat.db.read(_streams, me)
        rules = [r for r in await self.db.read(store.rules) if r.realm_id == me.realm_id]
        lines = []
        for rule in rules:
            where = f"#{streams[rule.stream_id]}" if rule.stream_id in streams else "a stream"
            target = f" {rule.target}" if rule.target else ""
            topic = f" > {rule.topic}" if rule.topic else ""
            events = ", ".join(e for e in EVENTS if e in rule.events)
            lines.append((rule.id, f"{rule.scope}{target} → {where}{topic} ({events})"))
        return SettingsScreen(
            streams=sorted(streams.items(), key=lambda s: s[1].lower()),
            discussion_stream_id=await settings_ops.discussion_stream(self.db),
            rules=lines,
            scopes=SCOPES,
            events=EVENTS,
        )

    async def change(
        self, wiki_user_id: int, form: Mapping[str, str], events: Sequence[str]
    ) -> str:
        me = await self._admin(wiki_user_id)
        if me is None:
            return "Must be an organization administrator"
        field = {k: str(v)[:MAX_FIELD_CHARS] for k, v in form.items()}
        try:
            await self._apply(me, field, list(events)[: len(EVENTS) + 1])
        except ChatError as error:
            return error.msg
        return ""

    async def _apply(self, me: User, form: dict[str, Any], events: list[str]) -> None:
        action = form.get("wpAction", "")
        if action == "discussion":
            stream_id = _number(form.get("wpStream", ""), "Invalid stream ID")
            await settings_ops.set_discussion_stream(self.db, self.chat, me, stream_id)
        elif action == "add":
            wiki = self.wiki()
            if wiki is None:
                raise ChatError("The wiki is not running")
            await settings_ops.add_rule(
                self.db, self.chat, wiki.site, me,
                _number(form.get("wpStream", ""), "Invalid stream ID"),
                form.get("wpScope", ""), events, form.get("wpTarget", ""), form.get("wpTopic", ""),
            )  # fmt: skip
        elif action == "remove":
            rule_id = _number(form.get("wpRule", ""), "Invalid rule ID")
            await settings_ops.remove_rule(self.db, me, rule_id)
        else:
            raise ChatError("Unknown action")


def settings_for_wiki(
    chat: ChatRuntime, db: Database, wiki: Callable[[], WikiRuntime | None]
) -> WorkspaceSettings:
    return SettingsForWiki(chat, db, wiki)
