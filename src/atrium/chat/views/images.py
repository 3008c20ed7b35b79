"""Avatars and the realm's icon and logos: POST/DELETE /users/me/avatar, /realm/icon, /realm/logo."""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from starlette.datastructures import UploadFile

from atrium.chat.actions.images import set_avatar, set_realm_image
from atrium.chat.errors import ChatError
from atrium.chat.guards import guarded, realm_admin
from atrium.chat.http import ApiRequest, api, request_files
from atrium.chat.images import check_image
from atrium.chat.params import Endpoint, Param
from atrium.chat.runtime import ChatRuntime
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


@api(Endpoint())
async def upload_avatar(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    sha256, content_type, upload = await one_image(req, "avatar", MAX_AVATAR_FILE_SIZE_MIB)
    url, old = await req.runtime.write(set_avatar, req.me, sha256, content_type)
    await keep_stored(req.runtime, upload, sha256, MAX_AVATAR_FILE_SIZE_MIB)
    if old:
        await release_blob(req.runtime, old)
    return {"avatar_url": url}


@api(Endpoint())
async def delete_avatar(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    url, old = await req.runtime.write(set_avatar, req.me, None, None)
    if old:
        await release_blob(req.runtime, old)
    return {"avatar_url": url}


@guarded(realm_admin, Endpoint())
async def upload_icon(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    sha256, content_type, upload = await one_image(req, "icon", MAX_ICON_FILE_SIZE_MIB)
    url, old = await req.runtime.write(set_realm_image, req.me, "icon", sha256, content_type)
    await keep_stored(req.runtime, upload, sha256, MAX_ICON_FILE_SIZE_MIB)
    if old:
        await release_blob(req.runtime, old)
    return {"icon_url": url}


@guarded(realm_admin, Endpoint())
async def delete_icon(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    url, old = await req.runtime.write(set_realm_image, req.me, "icon", None, None)
    if old:
        await release_blob(req.runtime, old)
    return {"icon_url": url}


_NIGHT = Param("night", bool, False)


@guarded(realm_admin, Endpoint((_NIGHT,)))
async def upload_logo(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    kind = "night_logo" if args["night"] else "logo"
    sha256, content_type, upload = await one_image(req, "logo", MAX_LOGO_FILE_SIZE_MIB)
    _url, old = await req.runtime.write(set_realm_image, req.me, kind, sha256, content_type)
    await keep_stored(req.runtime, upload, sha256, MAX_LOGO_FILE_SIZE_MIB)
    if old:
        await release_blob(req.runtime, old)
    return {}


@guarded(realm_admin, Endpoint((_NIGHT,)))
async def delete_logo(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    kind = "night_logo" if args["night"] else "logo"
    _url, old = await req.runtime.write(set_realm_image, req.me, kind, None, None)
    if old:
        await release_blob(req.runtime, old)
    return {}
