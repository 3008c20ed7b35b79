"""Avatars and the realm's icon and logos: POST/DELETE /users/me/avatar, /realm/icon, /realm/logo."""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from starlette.datastructures import UploadFile

from atrium.chat.actions.images import set_avatar, set_realm_image
from atrium.chat.errors import ChatError
from atrium.chat.guards import realm_admin
from atrium.chat.http import ApiRequest, request_files
from atrium.chat.images import check_image
from atrium.chat.runtime import ChatRuntime
from atrium.chat.typed_endpoint import Json, typed_endpoint
from atrium.chat.views.uploads import keep_stored, release_blob, store_upload

# Zulip's MAX_AVATAR_FILE_SIZE_MIB, MAX_ICON_FILE_SIZE_MIB and MAX_LOGO_FILE_SIZE_MIB.
MAX_AVATAR_FILE_SIZE_MIB = 5
MAX_ICON_FILE_SIZE_MIB = 5
MAX_LOGO_FILE_SIZE_MIB = 5


async def one_image(req: ApiRequest, what: str, limit_mib: int) -> tuple[str, str, UploadFile]:
    """The request's single image, checked and stored; (sha256, content type, the upload)."""
    files = await request_files(req.http)
    if len(files) != 1:
        raise ChatError(f"You must upload exactly one {what}.")
    sha256, content_type = await store_image(req.runtime, files[0], limit_mib)
    return sha256, content_type, files[0]


async def store_image(runtime: ChatRuntime, upload: UploadFile, limit_mib: int) -> tuple[str, str]:
    if upload.size is not None and upload.size > limit_mib * 1024 * 1024:
        raise ChatError(f"Uploaded file is larger than the allowed limit of {limit_mib} MiB")
    info = await anyio.to_thread.run_sync(check_image, upload.file)
    sha256, _size = await store_upload(runtime, upload, limit_mib)
    return sha256, info.content_type


@typed_endpoint
async def upload_avatar(req: ApiRequest) -> dict[str, Any]:
    sha256, content_type, upload = await one_image(req, "avatar", MAX_AVATAR_FILE_SIZE_MIB)
    url, old = await req.runtime.write(set_avatar, req.me, sha256, content_type)
    await keep_stored(req.runtime, upload, sha256, MAX_AVATAR_FILE_SIZE_MIB)
    if old:
        await release_blob(req.runtime, old)
    return {"avatar_url": url}


@typed_endpoint
async def delete_avatar(req: ApiRequest) -> dict[str, Any]:
    url, old = await req.runtime.write(set_avatar, req.me, None, None)
    if old:
        await release_blob(req.runtime, old)
    return {"avatar_url": url}


@typed_endpoint(guard=realm_admin)
async def upload_icon(req: ApiRequest) -> dict[str, Any]:
    sha256, content_type, upload = await one_image(req, "icon", MAX_ICON_FILE_SIZE_MIB)
    url, old = await req.runtime.write(set_realm_image, req.me, "icon", sha256, content_type)
    await keep_stored(req.runtime, upload, sha256, MAX_ICON_FILE_SIZE_MIB)
    if old:
        await release_blob(req.runtime, old)
    return {"icon_url": url}


@typed_endpoint(guard=realm_admin)
async def delete_icon(req: ApiRequest) -> dict[str, Any]:
    url, old = await req.runtime.write(set_realm_image, req.me, "icon", None, None)
    if old:
        await release_blob(req.runtime, old)
    return {"icon_url": url}


@typed_endpoint(guard=realm_admin)
async def upload_logo(req: ApiRequest, *, night: Json[bool] = False) -> dict[str, Any]:
    kind = "night_logo" if night else "logo"
    sha256, content_type, upload = await one_image(req, "logo", MAX_LOGO_FILE_SIZE_MIB)
    _url, old = await req.runtime.write(set_realm_image, req.me, kind, sha256, content_type)
    await keep_stored(req.runtime, upload, sha256, MAX_LOGO_FILE_SIZE_MIB)
    if old:
        await release_blob(req.runtime, old)
    return {}


@typed_endpoint(guard=realm_admin)
async def delete_logo(req: ApiRequest, *, night: Json[bool] = False) -> dict[str, Any]:
    kind = "night_logo" if night else "logo"
    _url, old = await req.runtime.write(set_realm_image, req.me, kind, None, None)
    if old:
        await release_blob(req.runtime, old)
    return {}
