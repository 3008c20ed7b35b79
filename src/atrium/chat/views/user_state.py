"""A user's own state besides settings: status, alert words, muted users."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.alert_words import add_alert_words, remove_alert_words
from atrium.chat.actions.muted_users import mute_user, unmute_user
from atrium.chat.actions.user_status import set_status
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries.alert_words import user_alert_words


@api(
    Endpoint(
        (
            Param("status_text"),
            Param("away", bool, None),
            Param("emoji_name"),
            Param("emoji_code"),
            Param("reaction_type"),
        )
    )
)
async def update_status(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(
        set_status,
        req.me,
        args["status_text"],
        args["away"],
        args["emoji_name"],
        args["emoji_code"],
        args["reaction_type"],
    )
    return {}


@api(Endpoint())
async def get_alert_words(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    return {"alert_words": await req.runtime.db.read(user_alert_words, req.me.id)}


_WORDS = Endpoint((Param("alert_words", list[str], REQUIRED),))


@api(_WORDS)
async def add_words(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    return {"alert_words": await req.runtime.write(add_alert_words, req.me, args["alert_words"])}


@api(_WORDS)
async def remove_words(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    words = await req.runtime.write(remove_alert_words, req.me, args["alert_words"])
    return {"alert_words": words}


_MUTED = Endpoint((Param("muted_user_id", path=True),))


@api(_MUTED)
async def mute(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(mute_user, req.me, args["muted_user_id"])
    return {}


@api(_MUTED)
async def unmute(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(unmute_user, req.me, args["muted_user_id"])
    return {}
