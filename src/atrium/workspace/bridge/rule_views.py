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
from atrium.chat.typed_endpoint import Json, PathOnly, typed_endpoint
from atrium.core.db import Database
from atrium.wiki.runtime import WikiRuntime
from atrium.workspace.bridge import settings_ops, store


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
        rule_id = await settings_ops.add_rule(
            db, req.runtime, site, req.me, stream_id, scope, events, target, topic
        )
        return {"id": rule_id}

    @typed_endpoint(guard=realm_admin)
    async def remove_rule(req: ApiRequest, *, rule_id: PathOnly[int]) -> dict[str, Any]:
        await settings_ops.remove_rule(db, req.me, rule_id)
        return {}

    return list_rules, add_rule, remove_rule


def settings_views(db: Database) -> tuple[ViewSpec, ViewSpec]:
    """`GET/PATCH /api/v1/atrium/workspace_settings`: the stream whose topics discuss the wiki's
    pages (0: none, and no Chat tab on the pages)."""

    @typed_endpoint(guard=realm_admin)
    async def get_settings(req: ApiRequest) -> dict[str, Any]:
        return {"discussion_stream_id": await settings_ops.discussion_stream(db)}

    @typed_endpoint(guard=realm_admin)
    async def update_settings(
        req: ApiRequest, *, discussion_stream_id: Json[int]
    ) -> dict[str, Any]:
        await settings_ops.set_discussion_stream(db, req.runtime, req.me, discussion_stream_id)
        return {}

    return get_settings, update_settings
