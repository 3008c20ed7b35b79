"""Uploads: files stored under the data directory (MediaWiki's hashed `x/xy/Name` layout), the
upload stash (`stash=1`, then `filekey`), the `image` row (with the file's metadata, see
mediameta.py), the file description page and the `upload` log entry.

A file arrives as an `Incoming` temporary file; `prepare` verifies it (uploadcheck.py) and reads
what its rows need, and only a `Prepared` file can be stashed or published, so no way of storing a
file skips the verification."""

from __future__ import annotations

import hashlib
import mimetypes
import mmap
import os
import re
import secrets
import shutil
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes import ChangeError, uploadcheck
from atrium.wiki.changes.journal import Performer, actor_id, comment_id, log_event
from atrium.wiki.changes.pageops import null_revision
from atrium.wiki.changes.pages import Editor, RenderedLinks, render_links, save_revision
from atrium.wiki.changes.protection import page_row
from atrium.wiki.files import metadata as mediameta
from atrium.wiki.files.incoming import Incoming
from atrium.wiki.files.paths import archive_path, hash_path
from atrium.wiki.site import Site
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import NS_FILE, Title, TitleParser

IMG = schema.image
OI = schema.oldimage
US = schema.uploadstash
MAX_SIZE = 104857600


def _base36(hexdigest: str) -> str:
    number = int(hexdigest, 16)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while number:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
    return out.rjust(31, "0")


@dataclass
class FileInfo:
    size: int
    width: int = 0
    height: int = 0
    bits: int = 0
    mime: str = "application/octet-stream"
    media_type: str = "UNKNOWN"


def inspect(data: bytes, name: str) -> FileInfo:
    """Size, dimensions and MIME type from the file's own header (PNG, GIF, JPEG); a GIF's bits
    as GIFMetadataExtractor reports them (its last block's); a JPEG's width and height as shown,
    swapped when its EXIF Orientation turns it a quarter."""
    info = FileInfo(len(data))
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 25:
        info.width, info.height = struct.unpack(">II", data[16:24])
        info.bits, info.mime, info.media_type = data[24], "image/png", "BITMAP"
    elif data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        info.width, info.height = struct.unpack("<HH", data[6:10])
        info.bits = mediameta.gif_bits(data) or 1
        info.mime, info.media_type = "image/gif", "BITMAP"
    elif data[:2] == b"\xff\xd8":
        info.mime, info.media_type = "image/jpeg", "BITMAP"
        at = 2
        while at + 9 < len(data):
            if data[at] != 0xFF:
                break
            marker = data[at + 1]
            length = struct.unpack(">H", data[at + 2 : at + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2):
                info.bits = data[at + 4]
                info.height, info.width = struct.unpack(">HH", data[at + 5 : at + 9])
                break
            at += 2 + length
        if mediameta.jpeg_rotation(data) in (90, 270):
            info.width, info.height = info.height, info.width
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        info.mime, info.media_type = "image/webp", "BITMAP"
        info.width, info.height = _webp_size(data)
    else:
        guessed = mimetypes.guess_type(name)[0]
        if guessed:
            info.mime = guessed
            major = guessed.split("/")[0]
            info.media_type = {"text": "TEXT", "audio": "AUDIO", "video": "VIDEO"}.get(
                major, "UNKNOWN"
            )
    return info


def _webp_size(data: bytes) -> tuple[int, int]:
    """The canvas of a WebP file (lossy VP8, lossless VP8L or extended VP8X)."""
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        return width, int.from_bytes(data[27:30], "little") + 1
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return 0, 0


@dataclass(frozen=True)
class Prepared:
    """A verified file and what its rows record; made only by `prepare`."""

    source: Incoming
    name: str  # the name asked for, as the stash records it
    title: Title
    extension: str
    info: FileInfo
    sha1: str
    metadata: dict[Any, Any]


def prepare(parser: TitleParser, source: Incoming, desired: str) -> Prepared:
    """Verify the file under the name `desired` and read its size, type, hash and metadata from
    the file (mapped, not read into memory). Slow for large files: run it in the worker pool."""
    if source.size == 0:
        raise uploadcheck.UploadRefused("empty-file", "empty-file")
    if source.size > MAX_SIZE:
        raise uploadcheck.UploadRefused("file-too-large", "file-too-large")
    checked = uploadcheck.verify(parser, desired, source.head(), source.size, MAX_SIZE)
    with (
        source.path.open("rb") as handle,
        mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped,
    ):
        # The mapping serves as the file's bytes: slicing and searching read only the pages used.
        data = cast(bytes, mapped)
        info = inspect(data, checked.title.dbkey)
        sha1 = _base36(hashlib.sha1(data).hexdigest())
        metadata = mediameta.extract(data, info.mime)
    return Prepared(source, desired, checked.title, checked.extension, info, sha1, metadata)


def stash(conn: Conn, files_dir: Path, user_id: int, file: Prepared) -> str:
    """Keep a verified file in the stash; returns its file key, whose extension is the verified
    one (never the client's text)."""
    key = f"{secrets.token_hex(6)}.{secrets.token_hex(3)}.{user_id}.{file.extension}"
    path = files_dir / "stash" / key
    path.parent.mkdir(parents=True, exist_ok=True)
    info = file.info
    conn.execute(
        sa.insert(US).values(
            us_user=user_id,
            us_key=key,
            us_orig_path=file.name,
            us_path=str(path),
            us_source_type="file",
            us_timestamp=now14(),
            us_status="finished",
            us_size=info.size,
            us_sha1=file.sha1,
            us_mime=info.mime,
            us_media_type=info.media_type,
            us_image_width=info.width,
            us_image_height=info.height,
            us_image_bits=info.bits,
        )
    )
    os.replace(file.source.path, path)
    return key


# UploadStash::KEY_FORMAT_REGEX (PHP's \w: ASCII letters, digits and the underscore)
STASH_KEY = re.compile(r"[A-Za-z0-9_.-]+\.[A-Za-z0-9_]*")


def from_stash(conn: Conn, user_id: int, key: str) -> Incoming:
    """UploadStash::getFile: a key of UploadStash::KEY_FORMAT_REGEX's shape, stashed by the user
    and still on disk."""
    if not STASH_KEY.fullmatch(key):
        raise ChangeError("invalid-file-key", "Not a valid file key.")
    # An entry still receiving chunks is no file yet (us_status "chunks").
    row = conn.one(
        sa.select(US).where(
            US.c.us_key == key, US.c.us_user == user_id, US.c.us_status == "finished"
        )
    )
    if row is None or not Path(str(row["us_path"])).is_file():
        raise ChangeError(
            "uploadstash-file-not-found",
            f'Key "{key}" not found in stash.',
            "uploadstash-file-not-found",
            (key,),
        )
    path = Path(str(row["us_path"]))
    return Incoming(str(row["us_orig_path"]), path, path.stat().st_size)


def drop_stash(conn: Conn, user_id: int, key: str) -> None:
    row = conn.one(sa.select(US).where(US.c.us_key == key, US.c.us_user == user_id))
    if row is not None:
        Path(str(row["us_path"])).unlink(missing_ok=True)
        conn.execute(sa.delete(US).where(US.c.us_id == row["us_id"]))


def warnings_for(conn: Conn, title: Title, sha1: str) -> dict[str, Any]:
    """UploadBase::checkWarnings: an existing file of that name, identical files, a deleted one."""
    found: dict[str, Any] = {}
    existing = conn.one(sa.select(IMG).where(IMG.c.img_name == title.dbkey))
    if existing is not None:
        if existing["img_sha1"] == sha1:
            found["nochange"] = {"timestamp": _iso(str(existing["img_timestamp"]))}
        else:
            found["exists"] = title.dbkey
    duplicates = [
        str(r["img_name"])
        for r in conn.all(
            sa.select(IMG.c.img_name).where(IMG.c.img_sha1 == sha1, IMG.c.img_name != title.dbkey)
        )
    ]
    if duplicates:
        found["duplicate"] = duplicates
    deleted = conn.scalar(
        sa.select(schema.archive.c.ar_id).where(
            schema.archive.c.ar_namespace == NS_FILE, schema.archive.c.ar_title == title.dbkey
        )
    )
    if deleted is not None and existing is None:
        found["was-deleted"] = title.dbkey
    return found


def _archive_current(conn: Conn, files_dir: Path, row: Any, ts: str) -> None:
    """LocalFile::publish over an existing file: the current version becomes an old one, its row
    copied to `oldimage` as "<ts>!<name>" and its bytes moved to images/archive/."""
    name = str(row["img_name"])
    archive_name = f"{ts}!{name}"
    current = files_dir / "images" / (hash_path(name) + name)
    target = files_dir / "images" / archive_path(name, archive_name)
    target.parent.mkdir(parents=True, exist_ok=True)
    if current.exists():
        current.replace(target)
    values = {f"oi_{k[4:]}": row[k] for k in row if k != "img_name"}
    conn.execute(sa.insert(OI).values(oi_name=name, oi_archive_name=archive_name, **values))


def _iso(ts: str) -> str:
    return f"{ts[0:4]}-{ts[4:6]}-{ts[6:8]}T{ts[8:10]}:{ts[10:12]}:{ts[12:14]}Z"


@dataclass
class Published:
    name: str
    timestamp: str
    info: FileInfo
    sha1: str
    comment: str
    log_id: int
    path: str
    warnings: dict[str, Any] = field(default_factory=dict)
    metadata: dict[Any, Any] = field(default_factory=dict)


def _description_revision(
    conn: Conn,
    site: Site,
    who: Performer,
    title: Title,
    text: str | None,
    comment: str,
    ts: str,
    rendered: RenderedLinks | None,
) -> tuple[int, int, bool]:
    """The description page's revision for an upload: its first one (with `text`, by default
    the comment) or, when it exists, a null revision saying a new version was uploaded."""
    page = page_row(conn, title)
    if page is None:
        editor = Editor(who.user_id, who.name, who.rights)
        saved = save_revision(
            conn, site, title, text if text is not None else comment, editor,
            comment=comment, timestamp=ts, rendered=rendered,
        )  # fmt: skip
        return saved.page_id, saved.rev_id, True
    page_id = int(page["page_id"])
    summary = f"{who.name} uploaded a new version of [[{site.parser.prefixed_text(title.ns, title.dbkey)}]]"
    return page_id, null_revision(conn, site, who, title, page_id, summary, minor=False), False


def description_rendering(
    conn: Conn, site: Site, title: Title, comment: str, text: str | None
) -> RenderedLinks:
    """The expansion of a new description page, made before `publish`'s write in a rendering
    thread (unused when the page exists: a new version adds a null revision)."""
    return render_links(conn, site, title, text if text is not None else comment)


def publish(
    conn: Conn,
    site: Site,
    who: Performer,
    files_dir: Path,
    file: Prepared,
    comment: str,
    text: str | None,
    rendered: RenderedLinks | None = None,
) -> Published:
    """Store the verified file, record it in `image`, create its description page and log the
    upload. The file is moved into place last, once every row is written. `rendered`: from
    `description_rendering`."""
    title = file.title
    existing = conn.one(sa.select(IMG).where(IMG.c.img_name == title.dbkey))
    if existing is not None and not who.allowed("reupload"):
        raise ChangeError(
            "fileexists-forbidden",
            "A file with this name already exists, and cannot be overwritten.",
            "fileexists-forbidden",
            (title.dbkey,),
        )
    ts = now14()
    info, sha1, metadata = file.info, file.sha1, file.metadata
    if existing is not None:
        _archive_current(conn, files_dir, existing, ts)
    relative = hash_path(title.dbkey) + title.dbkey
    path = files_dir / "images" / relative
    major, _, minor = info.mime.partition("/")
    values = {
        "img_size": info.size,
        "img_width": info.width,
        "img_height": info.height,
        "img_bits": info.bits,
        "img_metadata": mediameta.to_column(metadata),
        "img_media_type": info.media_type,
        "img_major_mime": major,
        "img_minor_mime": minor,
        "img_description_id": comment_id(conn, comment),
        "img_actor": actor_id(conn, who),
        "img_timestamp": ts,
        "img_sha1": sha1,
    }
    if existing is None:
        conn.execute(sa.insert(IMG).values(img_name=title.dbkey, **values))
    else:
        conn.execute(sa.update(IMG).where(IMG.c.img_name == title.dbkey).values(**values))
    page_id, rev_id, created = _description_revision(
        conn, site, who, title, text, comment, ts, rendered
    )
    # LocalFile::recordUpload3: the log entry is associated with the description page's new
    # revision (its first, or a null revision on a re-upload), which its recent-changes row
    # shows; the page's own creation stays out of recent changes but has its `create` entry.
    log_id = log_event(
        conn,
        who,
        "upload",
        "overwrite" if existing is not None else "upload",
        title,
        page_id=page_id,
        reason=comment,
        params={"img_sha1": sha1, "img_timestamp": _iso(ts)},
        timestamp=ts,
        rev_id=rev_id,
        site=site,
    )
    if created:
        log_event(
            conn, who, "create", "create", title,
            page_id=page_id, reason=comment, timestamp=ts, in_rc=False,
        )  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    os.replace(file.source.path, path)
    # The old version's scaled copies would otherwise be served for the new one.
    shutil.rmtree(files_dir / "images" / "thumb" / relative, ignore_errors=True)
    return Published(title.dbkey, ts, info, sha1, comment, log_id, relative, metadata=metadata)
