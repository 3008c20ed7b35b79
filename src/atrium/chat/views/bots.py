"""GET/POST /bots, PATCH/DELETE /bots/{id}, API key regeneration for oneself and for bots."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlsplit

import orjson

from atrium.chat.actions.bots import (
    INTERFACE_GENERIC,
    BotChanges,
    BotRequest,
    create_bot,
    deactivate_bot,
    regenerate_api_key,
    update_bot,
)
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, request_files
from atrium.chat.models import BOT_DEFAULT
from atrium.chat.queries.bots import owned_bot_infos
from atrium.chat.typed_endpoint import ApiParamConfig, Json, PathOnly, typed_endpoint
from atrium.chat.views.images import MAX_AVATAR_FILE_SIZE_MIB, store_image
from atrium.chat.views.uploads import keep_stored, release_blob


def _member(req: ApiRequest) -> None:
    """Zulip's `@require_member_or_admin`."""
    if req.me.is_guest:
        raise ChatError("Not allowed for guest users")
    if req.me.is_bot:
        raise ChatError("This endpoint does not accept bot requests.")


def _json_string(name: str, raw: str) -> str:
    """Zulip takes payload URLs JSON-encoded (`"https://…"`); a bare URL is taken as it is."""
    if raw.startswith('"'):
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise ChatError(f"Argument '{name}' is not valid JSON.") from None
        if not isinstance(value, str):
            raise ChatError(f"{name} is not a string")
        return value
    return raw


def bot_domain(req: ApiRequest) -> str:
    """Bots' email domain: the server's host name (Zulip's realm.get_bot_domain)."""
    return urlsplit(req.runtime.settings.base_url).hostname or "localhost"


@typed_endpoint
async def get_bots(req: ApiRequest) -> dict[str, Any]:
    _member(req)
    return {"bots": await req.runtime.db.read(owned_bot_infos, req.me)}


@typed_endpoint
async def create(
    req: ApiRequest,
    *,
    full_name: str,
    short_name: str,
    bot_type: Json[int] = BOT_DEFAULT,
    default_sending_stream: str | None = None,
    default_events_register_stream: str | None = None,
    default_all_public_streams: Json[bool | None] = None,
    payload_url: Annotated[str, ApiParamConfig(converter=_json_string)] = "",
    interface_type: Json[int] = INTERFACE_GENERIC,
) -> dict[str, Any]:
    _member(req)
    files = await request_files(req.http)
    if len(files) > 1:
        raise ChatError("You may only upload one file at a time")
    avatar = None
    if files:
        avatar = await store_image(req.runtime, files[0], MAX_AVATAR_FILE_SIZE_MIB)
    request = BotRequest(
        full_name=full_name,
        short_name=short_name,
        bot_type=bot_type,
        default_sending_stream=default_sending_stream,
        default_events_register_stream=default_events_register_stream,
        default_all_public_streams=default_all_public_streams,
        avatar=avatar,
        payload_url=payload_url,
        interface=interface_type,
    )
    try:
        result: dict[str, Any] = await req.runtime.write(
            create_bot, req.me, request, bot_domain(req)
        )
    except ChatError:
        if avatar is not None:  # stored before the checks: nothing names it now
            await release_blob(req.runtime, avatar[0])
        raise
    if avatar is not None:
        await keep_stored(req.runtime, files[0], avatar[0], MAX_AVATAR_FILE_SIZE_MIB)
    return result


@typed_endpoint
async def update(
    req: ApiRequest,
    *,
    bot_id: PathOnly[int],
    full_name: str | None = None,
    bot_owner_id: Json[int | None] = None,
    default_sending_stream: str | None = None,
    default_events_register_stream: str | None = None,
    default_all_public_streams: Json[bool | None] = None,
    service_payload_url: Annotated[str | None, ApiParamConfig(converter=_json_string)] = None,
    service_interface: Json[int | None] = None,
) -> dict[str, Any]:
    _member(req)
    changes = BotChanges(
        full_name=full_name,
        bot_owner_id=bot_owner_id,
        default_sending_stream=default_sending_stream,
        default_events_register_stream=default_events_register_stream,
        default_all_public_streams=default_all_public_streams,
        service_payload_url=service_payload_url,
        service_interface=service_interface,
    )
    result: dict[str, Any] = await req.runtime.write(update_bot, req.me, bot_id, changes)
    return result


@typed_endpoint
async def deactivate(req: ApiRequest, *, bot_id: PathOnly[int]) -> dict[str, Any]:
    _member(req)
    await req.runtime.write(deactivate_bot, req.me, bot_id)
    return {}


@typed_endpoint
async def regenerate_own_key(req: ApiRequest) -> dict[str, Any]:
    api_key = await req.runtime.write(regenerate_api_key, req.me, None)
    req.runtime.credentials.clear()  # the old key must fail from the next request on
    return {"api_key": api_key}


@typed_endpoint
async def regenerate_bot_key(req: ApiRequest, *, bot_id: PathOnly[int]) -> dict[str, Any]:
    _member(req)
    api_key = await req.runtime.write(regenerate_api_key, req.me, bot_id)
    req.runtime.credentials.clear()
    return {"api_key": api_key}
