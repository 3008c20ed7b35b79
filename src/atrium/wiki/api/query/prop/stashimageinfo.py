"""`prop=stashimageinfo` (ApiQueryStashImageInfo): the files in the caller's upload stash, by file key,
with the fields `imageinfo` gives a stored file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    INTEGER,
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.api.query.fileinfo import (
    META_PROPS,
    scaled_size,
)
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.changes.uploads import STASH_KEY
from atrium.wiki.files import metadata as mediameta
from atrium.wiki.messages import messages as msg
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import NS_FILE

US = schema.uploadstash


def _stash_metadata(row: Row, mime: str) -> mediameta.Meta | None:
    """A stashed file's metadata, read from its bytes (UploadStashFile is unregistered)."""
    path = Path(str(row["us_path"]))
    return mediameta.extract(path.read_bytes(), mime) if path.is_file() else None


STASHIMAGEINFO = ModuleSpec(
    "stashimageinfo",
    "ApiQueryStashImageInfo",
    "prop",
    "sii",
    (
        Param("filekey", multi=True),
        Param("sessionkey", multi=True, deprecated=True),
        Param(
            "prop",
            enum(
                "badfile",
                "bitdepth",
                "canonicaltitle",
                "commonmetadata",
                "dimensions",
                "extmetadata",
                "metadata",
                "mime",
                "sha1",
                "size",
                "thumbmime",
                "timestamp",
                "url",
            ),
            default="timestamp|url",
            multi=True,
        ),
        Param("urlwidth", INTEGER, default=-1),
        Param("urlheight", INTEGER, default=-1),
        Param("urlparam", default=""),
    ),
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    ctx = q.ctx
    if not ctx.caller.registered:
        raise ApiUsageError(
            "notloggedin",
            msg.api("apierror-mustbeloggedin-uploadstash"),
            module=STASHIMAGEINFO.path,
        )
    keys = list(params["filekey"] or []) + list(params["sessionkey"] or [])
    props = set(params["prop"])
    rows = await ctx.db.read(
        lambda conn: {
            str(r["us_key"]): r
            for r in conn.all(
                sa.select(US).where(US.c.us_user == ctx.caller.id, US.c.us_key.in_(keys))
            )
        }
    )
    results: list[dict[str, Any]] = []
    site = ctx.site
    for key in keys:
        row = rows.get(key)
        if row is None:
            # UploadStash::getFile: a key of another shape, then one not stashed
            error = (
                "uploadstash-file-not-found"
                if STASH_KEY.fullmatch(key)
                else "uploadstash-bad-path-bad-format"
            )
            raise ApiUsageError(error, msg.api(error, key), module=STASHIMAGEINFO.path)
        vals: dict[str, Any] = {}
        width, height = int(row["us_image_width"] or 0), int(row["us_image_height"] or 0)
        mime = str(row["us_mime"] or "application/octet-stream")
        meta = _stash_metadata(row, mime) if props & META_PROPS else None
        if "timestamp" in props:
            vals["timestamp"] = iso(str(row["us_timestamp"]))
        if props & {"size", "dimensions"}:
            vals["size"] = int(row["us_size"])
            vals["width"] = width
            vals["height"] = height
            duration = mediameta.length(meta, mime)
            if duration:
                vals["duration"] = duration
        if "canonicaltitle" in props:
            vals["canonicaltitle"] = site.parser.prefixed_text(NS_FILE, key)
        if "url" in props:
            url = f"{site.server}/wiki/Special:UploadStash/file/{key}"
            if params["urlwidth"] != -1 or params["urlheight"] != -1:
                size = scaled_size(width, height, params["urlwidth"], params["urlheight"])
                if size is None:
                    vals["thumburl"], vals["thumbwidth"], vals["thumbheight"] = url, width, height
                else:
                    vals["thumburl"] = (
                        f"{site.server}/wiki/Special:UploadStash/thumb/{key}/{size[0]}px-{key}"
                    )
                    vals["thumbwidth"], vals["thumbheight"] = size
                if "thumbmime" in props:
                    vals["thumbmime"] = mime
            vals["url"] = url
            vals["descriptionurl"] = url
        if "sha1" in props:
            vals["sha1"] = f"{int(str(row['us_sha1']), 36):040x}"
        mediameta.api_fields(vals, meta, mime, props, "latest")
        if "extmetadata" in props:
            vals["extmetadata"] = {}
        if "mime" in props:
            vals["mime"] = mime
        if "bitdepth" in props:
            vals["bitdepth"] = int(row["us_image_bits"] or 0)
        if "badfile" in props:
            vals["badfile"] = False
        results.append(vals)
    q.data["stashimageinfo"] = results


MODULE = QueryModule(STASHIMAGEINFO, run)
