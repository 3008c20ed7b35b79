"""Push registration (/users/me/apns_device_token, /users/me/android_gcm_reg_id) and
POST /users/me/hotspots."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.devices import add_push_token, mark_hotspot_read, remove_push_token
from atrium.chat.http import ApiRequest, api
from atrium.chat.models import PUSH_APNS, PUSH_GCM
from atrium.chat.params import REQUIRED, Endpoint, Param

# Zulip's settings.ZULIP_IOS_APP_ID, the default app id of an APNs registration.
DEFAULT_IOS_APP_ID = "org.zulip.Zulip"
_TOKEN = Param("token", default=REQUIRED)


@api(Endpoint((_TOKEN, Param("appid", default=DEFAULT_IOS_APP_ID))))
async def add_apns(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(add_push_token, req.me, PUSH_APNS, args["token"], args["appid"])
    return {}


@api(Endpoint((_TOKEN,)))
async def remove_apns(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(remove_push_token, req.me, PUSH_APNS, args["token"])
    return {}


@api(Endpoint((_TOKEN,)))
async def add_gcm(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(add_push_token, req.me, PUSH_GCM, args["token"], None)
    return {}


@api(Endpoint((_TOKEN,)))
async def remove_gcm(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(remove_push_token, req.me, PUSH_GCM, args["token"])
    return {}


@api(Endpoint((Param("hotspot", default=REQUIRED),)))
async def mark_hotspot(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(mark_hotspot_read, req.me, args["hotspot"])
    return {}
