"""A user's own state besides settings: status, alert words, muted users."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.alert_words import add_alert_words, remove_alert_words
from atrium.chat.actions.muted_users import mute_user, unmute_user
from atrium.chat.actions.user_status import set_status
from atrium.chat.http import ApiRequest
from atrium.chat.queries.alert_words import user_alert_words
from atrium.chat.typed_endpoint import Json, PathOnly, typed_endpoint


@typed_endpoint
async def update_status(
    req: ApiRequest,
    *,
    status_text: str | None = None,
    away: Json[bool] | None = None,
    emoji_name: str | None = None,
    emoji_code: str | None = None,
    reaction_type: str | None = None,
) -> dict[str, Any]:
    await req.runtime.write(
        set_status,
        req.me,
        status_text,
        away,
        emoji_name,
        emoji_code,
        reaction_type,
    )
    return {}


@typed_endpoint
async def get_alert_words(req: ApiRequest) -> dict[str, Any]:
    return {"alert_words": await req.runtime.db.read(user_alert_words, req.me.id)}


@typed_endpoint
async def add_words(req: ApiRequest, *, alert_words: Json[list[str]]) -> dict[str, Any]:
    return {"alert_words": await req.runtime.write(add_alert_words, req.me, alert_words)}


@typed_endpoint
async def remove_words(req: ApiRequest, *, alert_words: Json[list[str]]) -> dict[str, Any]:
    words = await req.runtime.write(remove_alert_words, req.me, alert_words)
    return {"alert_words": words}


@typed_endpoint
async def mute(req: ApiRequest, *, muted_user_id: PathOnly[int]) -> dict[str, Any]:
    await req.runtime.write(mute_user, req.me, muted_user_id)
    return {}


@typed_endpoint
async def unmute(req: ApiRequest, *, muted_user_id: PathOnly[int]) -> dict[str, Any]:
    await req.runtime.write(unmute_user, req.me, muted_user_id)
    return {}
