"""The workspace settings' changes, checked once for every way in: the Atrium endpoints
(`rule_views`) and the wiki's `Special:WorkspaceSettings` (`settings_page`). Each takes the
acting chat user, already known to be an administrator, and raises `ChatError` on bad input."""

from __future__ import annotations

from atrium.chat.errors import ChatError
from atrium.chat.models import User
from atrium.chat.queries.streams import stream_by_id
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn, Database
from atrium.wiki.site import Site
from atrium.workspace.bridge import store
from atrium.workspace.bridge.rules import (
    MAX_RULES,
    RuleError,
    checked_events,
    checked_topic,
    normalized_target,
)
from atrium.workspace.bridge.topics import DISCUSSION_STREAM


async def _check_stream(chat: ChatRuntime, me: User, stream_id: int) -> None:
    stream = await chat.db.read(lambda conn: stream_by_id(conn, me.realm_id, stream_id))
    if stream is None or stream["deactivated"]:
        raise ChatError("Invalid stream ID")


async def add_rule(
    db: Database,
    chat: ChatRuntime,
    site: Site,
    me: User,
    stream_id: int,
    scope: str,
    events: list[str],
    target: str,
    topic: str,
) -> int:
    try:
        target_ = normalized_target(site, scope, target[:300])
        events_ = checked_events(events)
        topic_ = checked_topic(topic)
    except RuleError as error:
        raise ChatError(str(error)) from None
    await _check_stream(chat, me, stream_id)

    def write(conn: Conn) -> int:
        if len(store.rules(conn)) >= MAX_RULES:
            raise ChatError(f"Too many rules (at most {MAX_RULES})")
        return store.add_rule(conn, me.realm_id, stream_id, topic_, scope, target_, events_, me.id)

    return await db.write(write)


async def remove_rule(db: Database, me: User, rule_id: int) -> None:
    def write(conn: Conn) -> bool:
        found = [r for r in store.rules(conn) if r.id == rule_id]
        if not found or found[0].realm_id != me.realm_id:
            return False
        return store.remove_rule(conn, rule_id)

    if not await db.write(write):
        raise ChatError("Invalid rule ID")


async def discussion_stream(db: Database) -> int:
    value = await db.read(store.setting, DISCUSSION_STREAM)
    return int(value) if value and value.isdigit() else 0


async def set_discussion_stream(db: Database, chat: ChatRuntime, me: User, stream_id: int) -> None:
    """0: none (and no Chat tab on the pages)."""
    if stream_id != 0:
        await _check_stream(chat, me, stream_id)
    await db.write(store.set_setting, DISCUSSION_STREAM, str(stream_id) if stream_id else None)
