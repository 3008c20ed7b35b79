"""`action=upload` with `chunk` (ApiUpload's chunked path): the first piece opens a stash entry,
each next one names it by `filekey` and `offset`, and the last one has the whole file verified
and stashed under a new key, which a final `action=upload&filekey=` publishes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atrium.core import workers
from atrium.wiki.api.actions.common import check_blocked
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.changes import ChangeError, upload_chunks, uploadcheck, uploads
from atrium.wiki.changes.uploadcheck import UploadRefused
from atrium.wiki.files.incoming import Incoming, TooLarge
from atrium.wiki.messages import messages as msg

MODULE = "upload"


def _refused(code: str, exc: ChangeError, **extra: Any) -> ApiUsageError:
    """A verification refusal under `code` (ApiBase::dieStatusWithCode), worded by its key."""
    return ApiUsageError(code, msg.api(exc.key, *exc.params), module=MODULE, extra=extra)


async def receive(
    ctx: ApiContext, params: dict[str, Any], piece: Incoming, files_dir: Path
) -> dict[str, Any]:
    """One piece of a chunked upload, checked in ApiUpload's order."""
    name = params["filename"]
    if name is None:
        raise ApiUsageError("missingparam", msg.missingparam("filename"), module=MODULE)
    key, offset = params["filekey"], params["offset"]
    if key is not None and offset == 0:
        raise ApiUsageError(
            "filekeynotallowed", msg.api("apierror-upload-filekeynotallowed"), module=MODULE
        )
    if key is None and offset != 0:
        raise ApiUsageError(
            "filekeyneeded", msg.api("apierror-upload-filekeyneeded"), module=MODULE
        )
    if (params["filesize"] or 0) > uploads.MAX_SIZE:
        raise ApiUsageError("file-too-large", msg.api("file-too-large"), module=MODULE)
    try:
        checked = uploadcheck.check_name(ctx.site.parser, name)
    except UploadRefused as exc:
        # The chunked path names any refused name so (UploadBase::getTitle is null).
        raise ApiUsageError("illegal-filename", msg.api("illegal-filename"), module=MODULE) from exc
    await check_blocked(ctx, MODULE, checked.title)
    total = (offset or 0) + piece.size
    if total > (params["filesize"] or 0):
        raise ApiUsageError("invalid-chunk", msg.api("apierror-invalid-chunk"), module=MODULE)
    if total != params["filesize"] and piece.size < upload_chunks.MIN_CHUNK:
        raise ApiUsageError(
            "chunk-too-small",
            msg.api("apierror-chunk-too-small", msg.num(upload_chunks.MIN_CHUNK)),
            module=MODULE,
        )
    user_id = ctx.caller.id
    if key is None:
        try:
            uploadcheck.verify_partial(piece.head())
        except UploadRefused as exc:
            raise _refused(exc.key, exc) from exc
        key = await ctx.db.write(
            upload_chunks.begin, files_dir, user_id, name, checked.extension, piece
        )
    else:
        with change_errors(MODULE):
            held = await ctx.db.read(upload_chunks.received, user_id, key)
        if held + piece.size > uploads.MAX_SIZE:
            raise _refused("stashfailed", ChangeError("file-too-large", "", "file-too-large"))
        if held != offset:
            raise _refused("stashfailed", upload_chunks.OffsetRefused(held), offset=str(held))
        try:
            uploadcheck.verify_partial(piece.head())
        except UploadRefused as exc:
            raise _refused("stashfailed", exc, offset=str(held)) from exc
        try:
            await ctx.db.write(upload_chunks.append, user_id, key, offset, piece)
        except upload_chunks.OffsetRefused as exc:
            raise _refused("stashfailed", exc, offset=str(exc.offset)) from exc
    if total != params["filesize"]:
        return {"upload": {"result": "Continue", "offset": total, "filekey": key}}
    return await _complete(ctx, key, files_dir)


async def _complete(ctx: ApiContext, key: str, files_dir: Path) -> dict[str, Any]:
    """The last piece is in: the joined file is verified as a whole and stashed anew."""
    user_id = ctx.caller.id
    with change_errors(MODULE):
        name, parts = await ctx.db.read(upload_chunks.pieces, user_id, key)
    joined: Incoming | None = None
    try:
        joined = await workers.run(upload_chunks.assemble, parts, name, files_dir, uploads.MAX_SIZE)
        prepared = await workers.run(uploads.prepare, ctx.site.parser, joined, name)
    except UploadRefused as exc:
        if joined is not None:
            joined.discard()
        raise _refused("stashfailed", exc) from exc
    except TooLarge as exc:
        raise _refused("stashfailed", ChangeError("file-too-large", "", "file-too-large")) from exc
    finally:
        # Joined or refused, the pieces are done with.
        await ctx.db.write(upload_chunks.drop, user_id, key)
    new_key = await ctx.db.write(uploads.stash, files_dir, user_id, prepared)
    result: dict[str, Any] = {"result": "Success", "filekey": new_key}
    warnings = await ctx.db.read(uploads.warnings_for, prepared.title, prepared.sha1)
    if warnings:
        result["warnings"] = warnings
    return {"upload": result}
