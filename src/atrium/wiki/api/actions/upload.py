"""`action=upload` (ApiUpload): upload a file, from the request or from the caller's stash,
or stash it; warnings stash the file and return its key."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from atrium.core import workers
from atrium.wiki.api.actions import Action, upload_chunks
from atrium.wiki.api.actions.common import (
    apply_watchlist,
    check_blocked,
    check_rate_limit,
    performer,
    prefixed,
    token_param,
    write_spec,
)
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, INTEGER, RAW, TAGS, TEXT, ModuleSpec, Param, enum
from atrium.wiki.changes import rendered_edit, uploads
from atrium.wiki.changes.expiry import api_expiry
from atrium.wiki.changes.uploadcheck import UploadRefused
from atrium.wiki.files import metadata as mediameta
from atrium.wiki.files.paths import hash_path, url_name
from atrium.wiki.messages import messages as msg

UPLOAD = write_spec(
    "upload",
    "ApiUpload",
    (
        Param("filename"),
        Param("comment", default=""),
        Param("tags", TAGS, multi=True),
        Param("text", TEXT),
        Param("watch", BOOLEAN, deprecated=True),
        Param("watchlist", enum("nochange", "preferences", "watch"), default="preferences"),
        Param("ignorewarnings", BOOLEAN),
        Param("file", RAW),
        Param("url"),
        Param("filekey"),
        Param("sessionkey", deprecated=True),
        Param("stash", BOOLEAN),
        Param("filesize", INTEGER, min=0, max=uploads.MAX_SIZE),
        Param("offset", INTEGER, min=0),
        Param("chunk", RAW),
        Param("async", BOOLEAN),
        Param("checkstatus", BOOLEAN),
        token_param(),
    ),
)


def _files_dir(ctx: ApiContext) -> Path:
    directory = ctx.site.files_dir
    if directory is None:
        raise ApiUsageError(
            "uploaddisabled",
            msg.api("uploaddisabled"),
            module="upload",
        )
    return directory


async def upload(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    files_dir = _files_dir(ctx)
    if not ctx.caller.registered or not ctx.caller.allowed("upload"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-upload")),
            module=spec.name,
        )
    await check_rate_limit(ctx, "upload", spec.name)
    piece = ctx.uploads.get("chunk")
    if piece is not None:
        return await upload_chunks.receive(ctx, params, piece, files_dir)
    filekey = params["filekey"] or params["sessionkey"]
    sent = ctx.uploads.get("file")
    sources = [k for k, v in (("file", sent), ("filekey", filekey), ("url", params["url"])) if v]
    if len(sources) != 1:
        names = ["filekey", "file", "url"]
        if not sources:
            raise ApiUsageError("missingparam", msg.missing_one_of(names), module=spec.name)
        raise ApiUsageError("invalidparammix", msg.invalidparammix(names), module=spec.name)
    if params["url"]:
        raise ApiUsageError(
            "copyuploaddisabled",
            msg.api("copyuploaddisabled"),
            module=spec.name,
        )
    user_id = ctx.caller.id
    with change_errors(spec.name):
        source = (
            sent if sent is not None else await ctx.db.read(uploads.from_stash, user_id, filekey)
        )
    if params["filename"] is None and not params["stash"]:
        raise ApiUsageError("missingparam", msg.missingparam("filename"), module=spec.name)
    name = params["filename"] or source.name
    with _upload_refusals(spec.name):
        prepared = await workers.run(uploads.prepare, ctx.site.parser, source, name)
    if params["stash"]:
        key = filekey or await ctx.db.write(uploads.stash, files_dir, user_id, prepared)
        return {"upload": {"result": "Success", "filekey": key, "sessionkey": key}}
    title = prepared.title
    await check_blocked(ctx, spec.name, title)
    warnings = await ctx.db.read(uploads.warnings_for, title, prepared.sha1)
    if warnings and not params["ignorewarnings"]:
        key = filekey or await ctx.db.write(uploads.stash, files_dir, user_id, prepared)
        return {
            "upload": {"result": "Warning", "warnings": warnings, "filekey": key, "sessionkey": key}
        }
    if "nochange" in warnings:
        raise ApiUsageError(
            "fileexists-no-change",
            msg.api("fileexists-no-change", prefixed(ctx, title)),
            module=spec.name,
        )
    with change_errors(spec.name):
        done = await rendered_edit.publish_upload(
            ctx.db,
            ctx.site,
            performer(ctx),
            files_dir,
            prepared,
            params["comment"],
            params["text"],
        )
    if filekey:
        await ctx.db.write(uploads.drop_stash, user_id, filekey)
    watch = "watch" if params["watch"] else params["watchlist"]
    await apply_watchlist(ctx, title, watch, "watchuploads")
    info = done.info
    text = prefixed(ctx, title)
    imageinfo: dict[str, Any] = {
        "timestamp": api_expiry(done.timestamp),
        "user": ctx.caller.name,
        "userid": user_id,
        "size": info.size,
        "width": info.width,
        "height": info.height,
    }
    meta = done.metadata
    duration = mediameta.length(meta, info.mime)
    if duration:
        imageinfo["duration"] = duration
    imageinfo |= {
        "comment": done.comment,
        "canonicaltitle": text,
        "url": f"{ctx.site.images_url}{hash_path(title.dbkey)}{url_name(title.dbkey)}",
        "descriptionurl": ctx.site.article_url(text.replace(" ", "_")),
        "sha1": _hex_sha1(done.sha1),
    }
    mediameta.api_fields(imageinfo, meta, info.mime, {"metadata", "commonmetadata"}, "latest")
    imageinfo |= {
        "mime": info.mime,
        "mediatype": info.media_type,
        "bitdepth": info.bits,
    }
    return {"upload": {"result": "Success", "filename": title.dbkey, "imageinfo": imageinfo}}


@contextmanager
def _upload_refusals(module: str) -> Iterator[None]:
    """UploadBase's refusals as ApiUpload::checkVerification reports them."""
    try:
        yield
    except UploadRefused as exc:
        raise ApiUsageError(
            exc.code, msg.api(exc.key, *exc.params), module=module, extra=exc.extra
        ) from exc


def _hex_sha1(base36: str) -> str:
    return f"{int(base36, 36):040x}"


ACTION = Action(UPLOAD, upload, token="csrf")
