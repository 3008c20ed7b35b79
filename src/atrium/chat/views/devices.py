"""Push registration (/users/me/apns_device_token, /users/me/android_gcm_reg_id) and
POST /users/me/hotspots."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.devices import add_push_token, mark_hotspot_read, remove_push_token
from atrium.chat.http import ApiRequest
from atrium.chat.models import PUSH_APNS, PUSH_GCM
from atrium.chat.typed_endpoint import typed_endpoint

# Zulip's settings.ZULIP_IOS_APP_ID, the default app id of an APNs registration.
DEFAULT_IOS_APP_ID = "org.zulip.Zulip"


@typed_endpoint
async def add_apns(
    req: ApiRequest, *, token: str, appid: str = DEFAULT_IOS_APP_ID
) -> dict[str, Any]:
    await req.runtime.write(add_push_token, req.me, PUSH_APNS, token, appid)
    return {}


@typed_endpoint
async def remove_apns(req: ApiRequest, *, token: str) -> dict[str, Any]:
    await req.runtime.write(remove_push_token, req.me, PUSH_APNS, token)
    return {}


@typed_endpoint
async def add_gcm(req: ApiRequest, *, token: str) -> dict[str, Any]:
    await req.runtime.write(add_push_token, req.me, PUSH_GCM, token, None)
    return {}


@typed_endpoint
async def remove_gcm(req: ApiRequest, *, token: str) -> dict[str, Any]:
    await req.runtime.write(remove_push_token, req.me, PUSH_GCM, token)
    return {}


@typed_endpoint
async def mark_hotspot(req: ApiRequest, *, hotspot: str) -> dict[str, Any]:
    await req.runtime.write(mark_hotspot_read, req.me, hotspot)
    return {}
