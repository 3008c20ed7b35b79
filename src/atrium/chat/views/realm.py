"""Organization administration: PATCH /realm, code playgrounds, linkifiers, default streams."""

from __future__ import annotations

from typing import Any

import orjson

from atrium.chat.actions.default_streams import add_default_stream, remove_default_stream
from atrium.chat.actions.linkifiers import add_linkifier, remove_linkifier, update_linkifier
from atrium.chat.actions.playgrounds import add_playground, remove_playground
from atrium.chat.actions.realm_settings import (
    BOOLEAN_SETTINGS,
    CHOICE_SETTINGS,
    LIMIT_SETTINGS,
    POLICY_SETTINGS,
    STREAM_SETTINGS,
    STRING_SETTINGS,
    update_realm,
)
from atrium.chat.actions.user_settings import change_realm_user_defaults
from atrium.chat.errors import ChatError
from atrium.chat.guards import guarded, realm_admin
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries.linkifiers import linkifier_dicts
from atrium.chat.queries.user_settings import DEFAULT_SETTING_NAMES, SETTING_TYPES


def _int_or_string(name: str, raw: str) -> int | str:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        value = raw
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ChatError(f"{name} is not a string or integer")
    return value


_REALM_PARAMS = (
    *(Param(name) for name in STRING_SETTINGS),
    *(Param(name, bool) for name in BOOLEAN_SETTINGS),
    *(Param(name, int) for name in POLICY_SETTINGS),
    *(Param(name, int) for name in CHOICE_SETTINGS),
    *(Param(name, int) for name in STREAM_SETTINGS),
    *(Param(name, default=None, converter=_int_or_string) for name in LIMIT_SETTINGS),
    Param("waiting_period_threshold", int),
    Param("message_retention_days", default=None, converter=_int_or_string),
)


@guarded(realm_admin, Endpoint(_REALM_PARAMS))
async def update(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    return await req.runtime.write(update_realm, req.me, args)


@guarded(
    realm_admin,
    Endpoint(tuple(Param(name, SETTING_TYPES[name]) for name in DEFAULT_SETTING_NAMES)),
)
async def update_user_settings_defaults(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(change_realm_user_defaults, req.me, args)
    return {}


@guarded(
    realm_admin,
    Endpoint(
        (
            Param("name", default=REQUIRED),
            Param("pygments_language", default=REQUIRED),
            Param("url_prefix", default=REQUIRED),
        )
    ),
)
async def create_playground(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    playground_id = await req.runtime.write(
        add_playground, req.me, args["name"], args["pygments_language"], args["url_prefix"]
    )
    return {"id": playground_id}


@guarded(realm_admin, Endpoint((Param("playground_id", path=True),)))
async def delete_playground(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(remove_playground, req.me, args["playground_id"])
    return {}


@api(Endpoint())
async def get_linkifiers(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    return {"linkifiers": await req.runtime.db.read(linkifier_dicts, req.me.realm_id)}


# Feature level 176 replaced `url_format_string` with `url_template`: the old name is not read.
_LINKIFIER = (Param("pattern", default=REQUIRED), Param("url_template", default=REQUIRED))


@guarded(realm_admin, Endpoint(_LINKIFIER))
async def create_linkifier(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    linkifier_id = await req.runtime.write(
        add_linkifier, req.me, args["pattern"], args["url_template"]
    )
    return {"id": linkifier_id}


@guarded(realm_admin, Endpoint((Param("filter_id", path=True), *_LINKIFIER)))
async def patch_linkifier(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(
        update_linkifier, req.me, args["filter_id"], args["pattern"], args["url_template"]
    )
    return {}


@guarded(realm_admin, Endpoint((Param("filter_id", path=True),)))
async def delete_linkifier(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(remove_linkifier, req.me, args["filter_id"])
    return {}


@guarded(realm_admin, Endpoint((Param("stream_id", int, REQUIRED),)))
async def create_default_stream(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(add_default_stream, req.me, args["stream_id"])
    return {}


@guarded(realm_admin, Endpoint((Param("stream_id", int, REQUIRED),)))
async def delete_default_stream(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(remove_default_stream, req.me, args["stream_id"])
    return {}
