"""POST /user_uploads, the temporary link of an upload, GET /attachments, DELETE /attachments/{id}.

The file is streamed from the spooled multipart body into the content-addressed store (in a
thread, in fixed-size chunks) before its row is written, so that a request never holds a whole
file in memory and the database never holds its bytes.
"""

from __future__ import annotations

import functools
import mimetypes
from typing import Any

import anyio.to_thread
from starlette.datastructures import UploadFile

from atrium.chat.actions.attachments import create_attachment, remove_attachment
from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest, request_files
from atrium.chat.queries.attachments import (
    attachment_by_path,
    blob_in_use,
    can_read_attachment,
    upload_space_used,
    user_attachments,
)
from atrium.chat.runtime import ChatRuntime
from atrium.chat.thumbnails import cache_path
from atrium.chat.typed_endpoint import PathOnly, typed_endpoint
from atrium.core.blobs import TooLarge
from atrium.core.db import Conn
from atrium.core.signing import sign

# How long a temporary link works (Zulip: 60 seconds).
TEMPORARY_URL_SECONDS = 60


def too_large(limit_mib: int) -> ChatError:
    return ChatError(f"Uploaded file is larger than the allowed limit of {limit_mib} MiB")


def content_type_of(upload: UploadFile) -> str:
    declared = (upload.content_type or "").split(";")[0].strip().lower()
    if declared and declared != "application/octet-stream":
        return declared
    guessed, _encoding = mimetypes.guess_type(upload.filename or "")
    return guessed or "application/octet-stream"


async def store_upload(runtime: ChatRuntime, upload: UploadFile, limit_mib: int) -> tuple[str, int]:
    """Stream one uploaded file into the blob store; (sha256, size)."""
    limit = limit_mib * 1024 * 1024
    if upload.size is not None and upload.size > limit:
        raise too_large(limit_mib)
    upload.file.seek(0)
    try:
        return await anyio.to_thread.run_sync(runtime.blobs.save, upload.file, limit)
    except TooLarge:
        raise too_large(limit_mib) from None


async def keep_stored(
    runtime: ChatRuntime, upload: UploadFile, sha256: str, limit_mib: int
) -> None:
    """After the row naming `sha256` is committed: if a concurrent delete of the same content
    removed the blob in between, store it again, so that no row names missing bytes."""
    if not runtime.blobs.exists(sha256):
        await store_upload(runtime, upload, limit_mib)


async def release_blob(runtime: ChatRuntime, sha256: str) -> None:
    """Delete a blob once no row names it (after the commit that dropped the last one), with
    the preview scaled from it."""
    if not await runtime.db.read(blob_in_use, sha256):
        await anyio.to_thread.run_sync(runtime.blobs.delete, sha256)
        preview = cache_path(runtime.settings.data_dir, sha256)
        await anyio.to_thread.run_sync(functools.partial(preview.unlink, missing_ok=True))


# What a multipart body may add to the file it carries (boundaries, part headers).
MULTIPART_ALLOWANCE = 64 * 1024


def body_within_limit(req: ApiRequest) -> None:
    """Refuse a body whose declared length already exceeds the limit, before receiving it."""
    limit_mib = req.runtime.settings.max_file_upload_size_mib
    declared = req.http.headers.get("content-length", "")
    if (
        declared.isascii()
        and declared.isdigit()
        and int(declared) > limit_mib * 1024 * 1024 + MULTIPART_ALLOWANCE
    ):
        raise too_large(limit_mib)


@typed_endpoint(precheck=body_within_limit)
async def upload_file(req: ApiRequest) -> dict[str, Any]:
    files = await request_files(req.http)
    if not files:
        raise ChatError("You must specify a file to upload")
    if len(files) != 1:
        raise ChatError("You may only upload one file at a time")
    [upload] = files
    limit_mib = req.runtime.settings.max_file_upload_size_mib
    sha256, size = await store_upload(req.runtime, upload, limit_mib)
    name = upload.filename or "uploaded-file"
    path_id = await req.runtime.write(
        create_attachment, req.me, name, sha256, size, content_type_of(upload)
    )
    await keep_stored(req.runtime, upload, sha256, limit_mib)
    return {"uri": f"/user_uploads/{path_id}"}


@typed_endpoint
async def temporary_url(
    req: ApiRequest, *, realm_id: PathOnly[int], path: PathOnly[str]
) -> dict[str, Any]:
    path_id = f"{realm_id}/{path}"

    def read(conn: Conn) -> bool | None:
        row = attachment_by_path(conn, path_id)
        if row is None:
            return None
        return can_read_attachment(conn, req.me, row)

    allowed = await req.runtime.db.read(read)
    if allowed is None:
        raise ChatError("File not found", status=404)
    if not allowed:
        raise ChatError("You are not authorized to view this file.", status=403)
    token = sign(req.runtime.secret, path_id, TEMPORARY_URL_SECONDS)
    filename = path_id.rsplit("/", 1)[-1]
    return {"url": f"/user_uploads/temporary/{token}/{filename}"}


@typed_endpoint
async def get_attachments(req: ApiRequest) -> dict[str, Any]:
    def read(conn: Conn) -> dict[str, Any]:
        return {
            "attachments": user_attachments(conn, req.me),
            "upload_space_used": upload_space_used(conn, req.me.realm_id),
        }

    return await req.runtime.db.read(read)


@typed_endpoint
async def delete_attachment(req: ApiRequest, *, attachment_id: PathOnly[int]) -> dict[str, Any]:
    sha256 = await req.runtime.write(remove_attachment, req.me, attachment_id)
    await release_blob(req.runtime, sha256)
    return {}
