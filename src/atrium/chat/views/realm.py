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
from atrium.chat.http import ApiRequest
from atrium.chat.params import Endpoint, Param
from atrium.chat.queries.linkifiers import linkifier_dicts
from atrium.chat.queries.user_settings import DEFAULT_SETTING_NAMES, SETTING_TYPES
from atrium.chat.typed_endpoint import Json, PathOnly, typed_endpoint


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


@typed_endpoint(guard=realm_admin)
async def create_playground(
    req: ApiRequest, *, name: str, pygments_language: str, url_prefix: str
) -> dict[str, Any]:
    playground_id = await req.runtime.write(
        add_playground, req.me, name, pygments_language, url_prefix
    )
    return {"id": playground_id}


@typed_endpoint(guard=realm_admin)
async def delete_playground(req: ApiRequest, *, playground_id: PathOnly[int]) -> dict[str, Any]:
    await req.runtime.write(remove_playground, req.me, playground_id)
    return {}


@typed_endpoint
async def get_linkifiers(req: ApiRequest) -> dict[str, Any]:
    return {"linkifiers": await req.runtime.db.read(linkifier_dicts, req.me.realm_id)}


# Feature level 176 replaced `url_format_string` with `url_template`: the old name is not read.


@typed_endpoint(guard=realm_admin)
async def create_linkifier(req: ApiRequest, *, pattern: str, url_template: str) -> dict[str, Any]:
    linkifier_id = await req.runtime.write(add_linkifier, req.me, pattern, url_template)
    return {"id": linkifier_id}


@typed_endpoint(guard=realm_admin)
async def patch_linkifier(
    req: ApiRequest, *, filter_id: PathOnly[int], pattern: str, url_template: str
) -> dict[str, Any]:
    await req.runtime.write(update_linkifier, req.me, filter_id, pattern, url_template)
    return {}


@typed_endpoint(guard=realm_admin)
async def delete_linkifier(req: ApiRequest, *, filter_id: PathOnly[int]) -> dict[str, Any]:
    await req.runtime.write(remove_linkifier, req.me, filter_id)
    return {}


@typed_endpoint(guard=realm_admin)
async def create_default_stream(req: ApiRequest, *, stream_id: Json[int]) -> dict[str, Any]:
    await req.runtime.write(add_default_stream, req.me, stream_id)
    return {}


@typed_endpoint(guard=realm_admin)
async def delete_default_stream(req: ApiRequest, *, stream_id: Json[int]) -> dict[str, Any]:
    await req.runtime.write(remove_default_stream, req.me, stream_id)
    return {}
