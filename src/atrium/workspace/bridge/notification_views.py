"""`GET/PATCH /api/v1/atrium/notification_settings` (and `/json`): each person's own chat
notifications from the wiki. `wiki_watchlist_pages` (off by default, as MediaWiki's
`enotifwatchlistpages`) sends them a direct message when a page on their wiki watchlist
changes. Under Atrium's own endpoint: Zulip's `/register` answer stays as it is."""

from __future__ import annotations

from typing import Any

from atrium.chat.http import ApiRequest, ViewSpec
from atrium.chat.typed_endpoint import Json, typed_endpoint
from atrium.core.db import Database
from atrium.workspace.bridge import store
from atrium.workspace.bridge.personal import WATCHLIST_SETTING


def notification_views(db: Database) -> tuple[ViewSpec, ViewSpec]:
    @typed_endpoint
    async def get_notification_settings(req: ApiRequest) -> dict[str, Any]:
        value = await db.read(store.person_setting, req.me.id, WATCHLIST_SETTING)
        return {WATCHLIST_SETTING: value == "1"}

    @typed_endpoint
    async def update_notification_settings(
        req: ApiRequest, *, wiki_watchlist_pages: Json[bool]
    ) -> dict[str, Any]:
        value = "1" if wiki_watchlist_pages else None
        await db.write(store.set_person_setting, req.me.id, WATCHLIST_SETTING, value)
        return {}

    return get_notification_settings, update_notification_settings
