"""What the file modules (`imageinfo`, `stashimageinfo`, `allimages`) report of one file version:
its `imageinfo` fields (`info`; current versions from `image`, old ones from `oldimage` with their
archive name), URLs and scaled sizes. URLs are the `/images/x/xy/Name` paths the wiki serves from its files directory
(old versions under `/images/archive/…`), scaled versions under `/images/thumb/…`."""

from __future__ import annotations

import html
import math
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.query.pageset import QueryRun
from atrium.wiki.files import metadata as mediameta
from atrium.wiki.files import thumb_cache
from atrium.wiki.files.paths import archive_path, hash_path, url_name
from atrium.wiki.files.thumbs import scaled_height
from atrium.wiki.reads.visibility import (
    DELETED_COMMENT,
    DELETED_RESTRICTED,
    DELETED_TEXT,
    DELETED_USER,
    user_can_bitfield,
)
from atrium.wiki.site import SCRIPT_PATH, Site
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import NS_FILE
from atrium.wiki.wikitext.html.media import TOO_BIG_TEXT

IMG = schema.image
US = schema.uploadstash


OI = schema.oldimage


def file_rows(conn: Conn, names: list[str]) -> dict[str, Row]:
    """The current version of each named file (with `archive_name` None)."""
    if not names:
        return {}
    rows = conn.all(
        sa.select(
            IMG,
            sa.null().label("archive_name"),
            schema.actor.c.actor_name,
            schema.actor.c.actor_user,
            schema.comment.c.comment_text,
        )
        .select_from(
            IMG.join(schema.actor, schema.actor.c.actor_id == IMG.c.img_actor).join(
                schema.comment, schema.comment.c.comment_id == IMG.c.img_description_id
            )
        )
        .where(IMG.c.img_name.in_(names))
    )
    return {str(r["img_name"]): r for r in rows}


def old_versions(
    conn: Conn, name: str, limit: int, start: str | None, end: str | None
) -> list[Row]:
    """LocalFile::getHistory: old versions newest first, at most `limit`, within [end, start]
    (the oldest ones when only `end` is given), in the `image` row's column names."""
    columns = [OI.c[f"oi_{c.name[4:]}"].label(c.name) for c in IMG.columns if c.name != "img_name"]
    query = (
        sa.select(
            OI.c.oi_name.label("img_name"),
            *columns,
            OI.c.oi_archive_name.label("archive_name"),
            OI.c.oi_deleted.label("deleted"),
            schema.actor.c.actor_name,
            schema.actor.c.actor_user,
            schema.comment.c.comment_text,
        )
        .select_from(
            OI.join(schema.actor, schema.actor.c.actor_id == OI.c.oi_actor).join(
                schema.comment, schema.comment.c.comment_id == OI.c.oi_description_id
            )
        )
        .where(OI.c.oi_name == name)
    )
    if start:
        query = query.where(OI.c.oi_timestamp <= start)
    if end:
        query = query.where(OI.c.oi_timestamp >= end)
    ascending = not start and end is not None
    order = OI.c.oi_timestamp.asc() if ascending else OI.c.oi_timestamp.desc()
    rows = conn.all(query.order_by(order, OI.c.oi_id.desc()).limit(limit))
    return list(reversed(rows)) if ascending else list(rows)


def _rel(name: str, archive_name: str | None) -> str:
    """The path below /images/ of a version (FileRepo::getZoneUrl + getRel/getArchiveRel)."""
    if archive_name is None:
        return f"{hash_path(name)}{url_name(name)}"
    return f"archive/{hash_path(name)}{url_name(archive_name)}"


def file_url(site: Site, name: str, archive_name: str | None = None) -> str:
    return f"{site.images_url}{_rel(name, archive_name)}"


def thumb_url(site: Site, name: str, width: int, archive_name: str | None = None) -> str:
    """The URL of a scaled copy; the width handed out is recorded so that it is made."""
    thumb_cache.record(site.files_dir, name, width)
    safe = url_name(name)
    return f"{site.images_url}thumb/{_rel(name, archive_name)}/{width}px-{safe}"


def _fit_box_width(width: int, height: int, box_height: int) -> int:
    """File::scaleHeight's inverse as MediaHandler::fitBoxWidth."""
    ideal = width * box_height / height
    rounded_up = math.ceil(ideal)
    if round(rounded_up * height / width) > box_height:
        return math.floor(ideal)
    return rounded_up


def scaled_size(width: int, height: int, want_w: int, want_h: int) -> tuple[int, int] | None:
    """The thumbnail size for `iiurlwidth`/`iiurlheight` (-1: not given); None when the
    original is shown instead (no upscaling of bitmaps)."""
    if width <= 0 or height <= 0:
        return None
    target = want_w if want_w > 0 else width
    if want_h > 0:
        target = min(target, _fit_box_width(width, height, want_h))
    if target >= width:
        return None
    target = max(target, 1)
    return target, scaled_height(width, height, target)


def _thumb_fields(
    site: Site,
    vals: dict[str, Any],
    name: str,
    archive_name: str | None,
    width: int,
    height: int,
    mime: str,
    params: dict[str, Any],
    props: set[str],
    scalable: bool,
) -> None:
    if params["urlwidth"] == -1 and params["urlheight"] == -1:
        return
    size = scaled_size(width, height, params["urlwidth"], params["urlheight"]) if scalable else None
    if size is not None and thumb_cache.too_big(width, height):
        # TransformTooBigImageAreaError: no scaled copy, MediaWiki's error text instead.
        vals["thumberror"] = TOO_BIG_TEXT
        return
    if size is None:
        vals["thumburl"] = file_url(site, name, archive_name)
        vals["thumbwidth"], vals["thumbheight"] = width, height
    else:
        vals["thumburl"] = thumb_url(site, name, size[0], archive_name)
        vals["thumbwidth"], vals["thumbheight"] = size
    if "thumbmime" in props:
        vals["thumbmime"] = mime


META_PROPS = {"size", "dimensions", "metadata", "commonmetadata"}  # the props that read it


def file_metadata(site: Site, row: Row) -> mediameta.Meta | None:
    """The version's metadata as recorded at upload; for a row recorded without it, read from
    the stored file (as LocalFile upgrades such rows)."""
    meta = mediameta.from_column(row.get("img_metadata"))
    if meta is not None or site.files_dir is None:
        return meta
    name, archive_name = str(row["img_name"]), row.get("archive_name")
    rel = hash_path(name) + name if archive_name is None else archive_path(name, archive_name)
    path = site.files_dir / "images" / rel
    if not path.is_file():
        return None
    mime = f"{row['img_major_mime']}/{row['img_minor_mime']}"
    return mediameta.extract(path.read_bytes(), mime)


def info(q: QueryRun, row: Row, props: set[str], params: dict[str, Any]) -> dict[str, Any]:
    """ApiQueryImageInfo::getInfo for one version of a file (`extmetadata` and `uploadwarning`
    are added by the imageinfo module, which reads what they need)."""
    site = q.ctx.site
    out = q.ctx.out
    name = str(row["img_name"])
    archive_name = row.get("archive_name")
    vals: dict[str, Any] = {}
    if "timestamp" in props:
        vals["timestamp"] = iso(str(row["img_timestamp"]))
    # An old version's hidden parts (revision deletion), shown to those who may see them.
    bits = int(row.get("deleted") or 0)
    rights = frozenset(q.ctx.caller.rights)
    file_visible = user_can_bitfield(bits, DELETED_TEXT, rights)
    if bits & DELETED_TEXT:
        out.flag_if(vals, "filehidden", True)
    if props & {"user", "userid"}:
        if bits & DELETED_USER:
            out.flag_if(vals, "userhidden", True)
        if user_can_bitfield(bits, DELETED_USER, rights):
            if "user" in props:
                vals["user"] = row["actor_name"]
            if row["actor_user"] is None:
                out.flag_if(vals, "anon", True)
            if "userid" in props:
                vals["userid"] = int(row["actor_user"] or 0)
    width, height = int(row["img_width"]), int(row["img_height"])
    mime = f"{row['img_major_mime']}/{row['img_minor_mime']}"
    meta = file_metadata(site, row) if props & META_PROPS else None
    if props & {"size", "dimensions"}:
        vals["size"] = int(row["img_size"])
        vals["width"] = width
        vals["height"] = height
        duration = mediameta.length(meta, mime)
        if duration:
            vals["duration"] = duration
    if props & {"comment", "parsedcomment"} and bits & DELETED_COMMENT:
        out.flag_if(vals, "commenthidden", True)
    comment_visible = user_can_bitfield(bits, DELETED_COMMENT, rights)
    if "comment" in props and comment_visible:
        vals["comment"] = row["comment_text"]
    if "parsedcomment" in props and comment_visible:
        vals["parsedcomment"] = html.escape(str(row["comment_text"]), quote=False)
    if "canonicaltitle" in props:
        vals["canonicaltitle"] = site.parser.prefixed_text(NS_FILE, name)
    if "url" in props and file_visible:
        scalable = row["img_media_type"] == "BITMAP" and width > 0
        _thumb_fields(site, vals, name, archive_name, width, height, mime, params, props, scalable)
        vals["url"] = file_url(site, name, archive_name)
        vals["descriptionurl"] = site.article_url(site.parser.prefixed_dbkey(NS_FILE, name))
        page_id = page_id_of(q, name)
        if page_id is not None:
            vals["descriptionshorturl"] = f"{site.server}{SCRIPT_PATH}/index.php?curid={page_id}"
    if "sha1" in props and file_visible:
        vals["sha1"] = f"{int(str(row['img_sha1']), 36):040x}"
    if file_visible:
        mediameta.api_fields(vals, meta, mime, props, params.get("metadataversion", "latest"))
    if "mime" in props:
        vals["mime"] = mime
    if "mediatype" in props:
        vals["mediatype"] = row["img_media_type"]
    if "archivename" in props and archive_name is not None and file_visible:
        vals["archivename"] = archive_name
    if "bitdepth" in props:
        vals["bitdepth"] = int(row["img_bits"])
    if bits & DELETED_RESTRICTED and bits & (DELETED_TEXT | DELETED_COMMENT | DELETED_USER):
        out.flag_if(vals, "suppressed", True)
    return vals


def page_id_of(q: QueryRun, name: str) -> int | None:
    for page in q.pages.good.values():
        if page.ns == NS_FILE and page.dbkey == name:
            return page.page_id
    return None


def file_titles(q: QueryRun) -> list[tuple[int, str]]:
    """(page key, file name) of the File: pages in the set, good and missing."""
    found = [(p.page_id, p.dbkey) for p in q.pages.good.values() if p.ns == NS_FILE]
    found += [(m.fake_id, m.dbkey) for m in q.pages.missing if m.ns == NS_FILE]
    return found
