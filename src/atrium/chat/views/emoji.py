"""GET /realm/emoji, POST /realm/emoji/{name} (an image upload), DELETE /realm/emoji/{name}."""

from __future__ import annotations

from typing import Any

import anyio.to_thread

from atrium.chat.actions.emoji import (
    add_emoji,
    check_add_emoji,
    check_override,
    deactivate_emoji,
    normalize_emoji_name,
)
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, request_files
from atrium.chat.images import check_image
from atrium.chat.queries.emoji import realm_emoji_dicts
from atrium.chat.typed_endpoint import PathOnly, typed_endpoint
from atrium.chat.views.uploads import keep_stored, store_upload

# Zulip's MAX_EMOJI_FILE_SIZE_MIB.
MAX_EMOJI_FILE_SIZE_MIB = 5


@typed_endpoint
async def get_emoji(req: ApiRequest) -> dict[str, Any]:
    return {"emoji": await req.runtime.db.read(realm_emoji_dicts, req.me.realm_id)}


@typed_endpoint
async def upload_emoji(req: ApiRequest, *, emoji_name: PathOnly[str]) -> dict[str, Any]:
    name = normalize_emoji_name(emoji_name)
    await req.runtime.db.read(check_add_emoji, req.me, name)
    files = await request_files(req.http)
    if len(files) != 1:
        raise ChatError("You must upload exactly one file.")
    check_override(req.me, name)
    [upload] = files
    if upload.size is not None and upload.size > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024:
        raise ChatError(
            f"Uploaded file is larger than the allowed limit of {MAX_EMOJI_FILE_SIZE_MIB} MiB"
        )
    info = await anyio.to_thread.run_sync(check_image, upload.file)
    sha256, _size = await store_upload(req.runtime, upload, MAX_EMOJI_FILE_SIZE_MIB)
    await req.runtime.write(add_emoji, req.me, name, sha256, info.content_type, info.extension)
    await keep_stored(req.runtime, upload, sha256, MAX_EMOJI_FILE_SIZE_MIB)
    return {}


@typed_endpoint
async def delete_emoji(req: ApiRequest, *, emoji_name: PathOnly[str]) -> dict[str, Any]:
    await req.runtime.write(deactivate_emoji, req.me, emoji_name)
    return {}
