"""The wiki feed's rules under Atrium's own endpoints (administrators only):
`GET/POST /api/v1/atrium/wiki_feed/rules`, `DELETE /api/v1/atrium/wiki_feed/rules/{rule_id}`,
and their `/json` twins for the chat's settings screen. Nothing is added to Zulip's own answers
(`/register`, `/realm`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from atrium.chat.errors import ChatError
from atrium.chat.guards import realm_admin
from atrium.chat.http import ApiRequest, ViewSpec
from atrium.chat.queries.streams import stream_by_id
from atrium.chat.typed_endpoint import Json, PathOnly, typed_endpoint
from atrium.core.db import Conn, Database
from atrium.wiki.runtime import WikiRuntime
from atrium.workspace.bridge import store
from atrium.workspace.bridge.rules import (
    MAX_RULES,
    RuleError,
    checked_events,
    checked_topic,
    normalized_target,
)
from atrium.workspace.bridge.topics import DISCUSSION_STREAM


def _running(wiki: Callable[[], WikiRuntime | None]) -> WikiRuntime:
    runtime = wiki()
    if runtime is None:
        raise ChatError("The wiki is not running", "BAD_REQUEST", 503)
    return runtime


def rule_views(
    db: Database, wiki: Callable[[], WikiRuntime | None]
) -> tuple[ViewSpec, ViewSpec, ViewSpec]:
    @typed_endpoint(guard=realm_admin)
    async def list_rules(req: ApiRequest) -> dict[str, Any]:
        rules = await db.read(store.rules)
        return {"rules": [r.as_dict() for r in rules if r.realm_id == req.me.realm_id]}

    @typed_endpoint(guard=realm_admin)
    async def add_rule(
        req: ApiRequest,
        *,
        stream_id: Json[int],
        scope: str,
        events: Json[list[str]],
        target: str = "",
        topic: str = "",
    ) -> dict[str, Any]:
        site = _running(wiki).site
        try:
            checked = (
                normalized_target(site, scope, target[:300]),
                checked_events(events),
                checked_topic(topic),
            )
        except RuleError as error:
            raise ChatError(str(error)) from None
        stream = await req.runtime.db.read(
            lambda conn: stream_by_id(conn, req.me.realm_id, stream_id)
        )
        if stream is None or stream["deactivated"]:
            raise ChatError("Invalid stream ID")

        def write(conn: Conn) -> int:
            if len(store.rules(conn)) >= MAX_RULES:
                raise ChatError(f"Too many rules (at most {MAX_RULES})")
            target_, events_, topic_ = checked
            return store.add_rule(
                conn, req.me.realm_id, stream_id, topic_, scope, target_, events_, req.me.id
            )

        return {"id": await db.write(write)}

    @typed_endpoint(guard=realm_admin)
    async def remove_rule(req: ApiRequest, *, rule_id: PathOnly[int]) -> dict[str, Any]:
        def write(conn: Conn) -> bool:
            found = [r for r in store.rules(conn) if r.id == rule_id]
            if not found or found[0].realm_id != req.me.realm_id:
                return False
            return store.remove_rule(conn, rule_id)

        if not await db.write(write):
            raise ChatError("Invalid rule ID")
        return {}

    return list_rules, add_rule, remove_rule


def settings_views(db: Database) -> tuple[ViewSpec, ViewSpec]:
    """`GET/PATCH /api/v1/atrium/workspace_settings`: the stream whose topics discuss the wiki's
    pages (0: none, and no Chat tab on the pages)."""

    @typed_endpoint(guard=realm_admin)
    async def get_settings(req: ApiRequest) -> dict[str, Any]:
        value = await db.read(store.setting, DISCUSSION_STREAM)
        return {"discussion_stream_id": int(value) if value and value.isdigit() else 0}

    @typed_endpoint(guard=realm_admin)
    async def update_settings(
        req: ApiRequest, *, discussion_stream_id: Json[int]
    ) -> dict[str, Any]:
        if discussion_stream_id != 0:
            stream = await req.runtime.db.read(
                lambda conn: stream_by_id(conn, req.me.realm_id, discussion_stream_id)
            )
            if stream is None or stream["deactivated"]:
                raise ChatError("Invalid stream ID")
        value = str(discussion_stream_id) if discussion_stream_id else None
        await db.write(store.set_setting, DISCUSSION_STREAM, value)
        return {}

    return get_settings, update_settings
