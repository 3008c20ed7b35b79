"""File metadata as MediaWiki 1.39's media handlers extract it at upload and keep in
`img_metadata`: JPEG (BitmapMetadataHandler::Jpeg — the Exif class's filtered EXIF, COM comments,
MEDIAWIKI_EXIF_VERSION), GIF (GIFMetadataExtractor: frames, looping, duration, comments) and PNG
(PNGMetadataExtractor: APNG frames, text chunks, tIME, pHYs). Shapes follow PHP's arrays: a list
is a PHP list, a dict an associative array (keys that PHP would read as integers are integers
again when shown); EXIF comes from exif.py. XMP and IPTC blocks are not read. The API side:
`for_api` (iimetadataversion), `common` (commonmetadata), `name_value`
(ApiQueryImageInfo::processMetaData), `length` (the `duration` of an animation)."""

from __future__ import annotations

import contextlib
import json
import re
import struct
import unicodedata
import zlib
from datetime import datetime
from typing import Any

from atrium.wiki.files.exif import (
    Meta as Meta,  # re-exported: the shape the API modules pass around
)
from atrium.wiki.files.exif import read_exif, utf8_or_1252

EXIF_VERSION = 2  # Exif::version()
GIF_VERSION = 1  # GIFMetadataExtractor::VERSION
PNG_VERSION = 1  # PNGMetadataExtractor::VERSION


def _jpeg(data: bytes) -> Meta:
    """BitmapMetadataHandler::Jpeg as JpegHandler keeps it (SOF dropped)."""
    comments: list[str] = []
    exif: Meta = {}
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            at += 1
            continue
        marker = data[at + 1]
        if marker == 0xFF:
            at += 1
            continue
        if marker in (0xD9, 0xDA):
            break
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if length < 2:
            break
        body = data[at + 4 : at + 2 + length]
        if marker == 0xFE:
            com = body.strip(b" \t\n\r\0\x0b")
            comments.append(utf8_or_1252(com))
        elif marker == 0xE1 and body[:6] == b"Exif\0\0" and not exif:
            exif, _ = read_exif(body[6:])
        at += 2 + length
    meta: Meta = dict(exif)
    if comments and "JPEGFileComment" not in meta:
        meta["JPEGFileComment"] = comments
    meta["MEDIAWIKI_EXIF_VERSION"] = EXIF_VERSION
    return meta


def _gif(data: bytes) -> tuple[Meta, int]:
    """GIFMetadataExtractor::getMetadata as GIFHandler keeps it, and the bits it reports (the
    last block's, as the extractor overwrites them)."""
    frames, duration, looped = 0, 0.0, False
    comments: list[str] = []

    def bpp(byte: int) -> tuple[int, bool]:
        return (byte & 7) + 1, bool(byte >> 7 & 1)

    def skip_block(pos: int) -> int:
        while pos < len(data):
            size = data[pos]
            pos += 1
            if size == 0:
                return pos
            pos += size
        raise ValueError("ran out of input")

    def read_block(pos: int) -> tuple[bytes, int]:
        out = b""
        while pos < len(data) and data[pos] != 0:
            out += data[pos + 1 : pos + 1 + data[pos]]
            pos += 1 + data[pos]
        return out, pos + 1

    bits, have_map = bpp(data[10])
    pos = 13 + (3 * 2**bits if have_map else 0)
    while pos < len(data):
        sep = data[pos]
        pos += 1
        if sep == 0x2C:
            frames += 1
            bits, have_map = bpp(data[pos + 8])
            pos += 9 + (3 * 2**bits if have_map else 0) + 1
            pos = skip_block(pos)
        elif sep == 0x21:
            code = data[pos]
            pos += 1
            if code == 0xF9:
                (delay,) = struct.unpack("<H", data[pos + 2 : pos + 4])
                duration += delay * 0.01
                pos += 6
            elif code == 0xFE:
                text, pos = read_block(pos)
                if text == b"":
                    raise ValueError("zero-length comment block")
                comment = utf8_or_1252(text)
                if not comments or comments[-1] != comment:
                    comments.append(comment)
            elif code == 0xFF:
                size = data[pos]
                name = data[pos + 1 : pos + 1 + size]
                if size == 11 and name == b"NETSCAPE2.0":
                    pos += 1 + size
                    (loops,) = struct.unpack("<H", data[pos + 2 : pos + 4])
                    looped = looped or loops != 1
                    pos += 5
                else:
                    pos = skip_block(pos)
            else:
                pos = skip_block(pos)
        elif sep == 0x3B:
            break
        else:
            raise ValueError(f"unknown byte {sep}")
    inner: Meta = {}
    if comments:
        inner["GIFFileComment"] = comments
    inner["_MW_GIF_VERSION"] = GIF_VERSION
    meta: Meta = {"frameCount": frames, "looped": looped, "duration": duration, "metadata": inner}
    return meta, bits


_PNG_TEXT = {
    "artist": "Artist",
    "model": "Model",
    "make": "Make",
    "author": "Artist",
    "comment": "PNGFileComment",
    "description": "ImageDescription",
    "title": "ObjectName",
    "copyright": "Copyright",
    "source": "Model",
    "software": "Software",
    "disclaimer": "Disclaimer",
    "warning": "ContentWarning",
    "url": "Identifier",
    "label": "Label",
    "creation time": "DateTimeDigitized",
}
_COLOUR_TYPES = {
    0: "greyscale",
    2: "truecolour",
    3: "index-coloured",
    4: "greyscale-alpha",
    6: "truecolour-alpha",
}
_ITXT = re.compile(rb"^([^\x00]{1,79})\x00(\x00|\x01)\x00([^\x00]*)(.)[^\x00]*\x00(.*)$", re.S)


def exif_time(value: str) -> str | None:
    """wfTimestamp(TS_EXIF, …) for the formats PNG writers use."""
    text = value.strip()
    for fmt in (
        "%Y:%m:%d %H:%M:%S",
        "%Y-%m-%dT%H:%M:%SZ",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S",
        "%Y%m%d%H%M%S",
        "%a, %d %b %Y %H:%M:%S %z",
        "%a, %d %b %Y %H:%M:%S GMT",
        "%d %b %Y %H:%M:%S %z",
    ):
        try:
            parsed = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return parsed.strftime("%Y:%m:%d %H:%M:%S")
    return None


def _png(data: bytes) -> Meta:
    """PNGMetadataExtractor::getMetadata as PNGHandler keeps it."""
    frames, loops, duration = 0, 1, 0.0
    bit_depth, colour = 0, "unknown"
    text: Meta = {}

    def put(keyword: str, lang: str, content: str) -> None:
        entry = text.setdefault(_PNG_TEXT[keyword], {})
        entry[lang] = content
        entry["_type"] = "lang"

    pos = 8
    while pos + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + size]
        crc = data[pos + 8 + size : pos + 12 + size]
        pos += 12 + size
        if len(body) < size or len(crc) < 4:
            break
        if struct.pack(">I", zlib.crc32(kind + body)) != crc:
            continue
        if kind == b"IHDR" and size >= 10:
            bit_depth = body[8]
            colour = _COLOUR_TYPES.get(body[9], "unknown")
        elif kind == b"acTL" and size >= 4:
            frames, loops = struct.unpack(">II", body[:8])
        elif kind == b"fcTL":
            delay = body[20:24]
            if len(delay) == 4:
                num, den = struct.unpack(">HH", delay)
                if num:
                    duration += num / (den or 100)
        elif kind == b"iTXt":
            m = _ITXT.match(body)
            if m is None:
                continue
            keyword = m[1].decode("latin-1").lower()
            if keyword not in _PNG_TEXT:
                continue
            content = m[5]
            if m[2] == b"\x01":
                if m[4] != b"\x00":
                    continue
                try:
                    content = zlib.decompress(content)
                except zlib.error:
                    continue
            lang = m[3].decode("latin-1").lower() or "x-default"
            put(keyword, lang, content.decode("utf-8", "replace"))
        elif kind in (b"tEXt", b"zTXt"):
            keyword_raw, sep, rest = body.partition(b"\0")
            if not sep or keyword_raw == b"" or (kind == b"zTXt" and rest == b""):
                continue
            keyword = keyword_raw.decode("latin-1").lower()
            if keyword not in _PNG_TEXT:
                continue
            if kind == b"zTXt":
                if rest[:1] != b"\0":
                    continue
                try:
                    rest = zlib.decompress(rest[1:])
                except zlib.error:
                    continue
            put(keyword, "x-default", rest.decode("latin-1"))
        elif kind == b"tIME" and size == 7:
            y, mo, d, h, mi, s = struct.unpack(">HBBBBB", body)
            with contextlib.suppress(ValueError):
                text["DateTime"] = datetime(y, mo, d, h, mi, s).strftime("%Y:%m:%d %H:%M:%S")
        elif kind == b"pHYs" and size == 9:
            width, height, unit = struct.unpack(">IIB", body)
            if unit == 1 and width > 0 and height > 0:
                text["XResolution"] = f"{width}/100"
                text["YResolution"] = f"{height}/100"
                text["ResolutionUnit"] = 3
        elif kind == b"IEND":
            break
    if loops > 1:
        duration *= loops
    digitized = text.get("DateTimeDigitized")
    if isinstance(digitized, dict):
        for lang, value in digitized.items():
            if lang != "_type":
                digitized[lang] = exif_time(value) or value
    inner: Meta = dict(text)
    inner["_MW_PNG_VERSION"] = PNG_VERSION
    return {
        "frameCount": frames,
        "loopCount": loops,
        "duration": duration,
        "bitDepth": bit_depth,
        "colorType": colour,
        "metadata": inner,
    }


def extract(data: bytes, mime: str) -> Meta:
    """The metadata MediaWiki's handler for `mime` keeps for these bytes ({} for none; a broken
    file gives MediaWiki's `_error` marker)."""
    try:
        if mime == "image/jpeg":
            return _jpeg(data)
        if mime == "image/gif":
            return _gif(data)[0]
        if mime == "image/png":
            return _png(data)
    except (ValueError, IndexError, struct.error):
        return {"_error": 0}
    return {}


# ExifBitmapHandler::getRotationForExif: degrees counterclockwise; the mirrored orientations
# (2, 4, 5, 7) are not turned.
_EXIF_ROTATION = {8: 90, 3: 180, 6: 270}


def jpeg_rotation(data: bytes) -> int:
    """How far MediaWiki turns a JPEG for its EXIF Orientation ($wgEnableAutoRotation): 90 or
    270 swap the width and height it records and the thumbnails are turned."""
    try:
        orientation = _jpeg(data).get("Orientation")
    except (ValueError, IndexError, struct.error):
        return 0
    return _EXIF_ROTATION.get(orientation, 0) if isinstance(orientation, int) else 0


def gif_bits(data: bytes) -> int | None:
    """The bit depth GIFHandler records (None when the file cannot be read)."""
    try:
        return _gif(data)[1]
    except (ValueError, IndexError, struct.error):
        return None


def to_column(meta: Meta) -> str:
    return json.dumps(meta, ensure_ascii=False, separators=(",", ":"))


def from_column(text: str | None) -> Meta | None:
    """The stored metadata, or None when the row has none recorded (older uploads)."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


# --- the API's views ------------------------------------------------------------------------------


def _flatten(value: Any) -> Any:
    """FormatMetadata::flattenArrayReal without HTML (ExifBitmapHandler's version 1)."""
    if isinstance(value, list):
        items: Meta = dict(enumerate(value))
    elif isinstance(value, dict):
        items = dict(value)
    else:
        return value
    kind = items.pop("_type", "ul")
    if len(items) == 1 and kind != "lang" and (0 in items or "0" in items):
        return items.get(0, items.get("0"))
    if not items:
        return ""
    parts = [_php_string(v) for v in items.values()]
    if kind == "lang":
        default = items.get("x-default")
        return _php_string(default) if default is not None else parts[0]
    mark = "#" if kind == "ol" else "*"
    return "".join(f"\n{mark}{p}" for p in parts)


def _php_string(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list | dict):
        return "Array"
    return str(value)


def for_api(meta: Meta, mime: str, version: str) -> Meta:
    """File::convertMetadataVersion: JPEG metadata in version 1 has its arrays flattened."""
    if mime != "image/jpeg" or version == "latest":
        return meta
    match = re.match(r"\s*[+-]?\d+", version.split(";", 1)[0])
    number = int(match[0]) if match else 0
    if number < 1 or number >= 2 or meta.get("MEDIAWIKI_EXIF_VERSION") != EXIF_VERSION:
        return meta
    converted = {k: _flatten(v) if isinstance(v, list | dict) else v for k, v in meta.items()}
    converted["MEDIAWIKI_EXIF_VERSION"] = 1
    return converted


def common(meta: Meta | None, mime: str) -> Meta:
    """getCommonMetaArray of the handler for `mime`."""
    if not meta:
        return {}
    if mime == "image/jpeg":
        return {k: v for k, v in meta.items() if k != "MEDIAWIKI_EXIF_VERSION"}
    if mime in ("image/gif", "image/png"):
        inner = meta.get("metadata")
        if not isinstance(inner, dict):
            return {}
        drop = "_MW_GIF_VERSION" if mime == "image/gif" else "_MW_PNG_VERSION"
        return {k: v for k, v in inner.items() if k != drop}
    return {}


def length(meta: Meta | None, mime: str) -> float:
    """MediaHandler::getLength: the animation's duration for GIF and PNG, else 0."""
    if not meta or mime not in ("image/gif", "image/png"):
        return 0.0
    value = meta.get("duration")
    return float(value) if isinstance(value, int | float) and value else 0.0


def _text(value: Any) -> Any:
    # ApiResult keeps every string in Unicode normal form C.
    return unicodedata.normalize("NFC", value) if isinstance(value, str) else value


def _key(key: Any) -> Any:
    if isinstance(key, str) and re.fullmatch(r"-?[1-9]\d*|0", key) and len(key) < 19:
        return int(key)
    return _text(key)


def _scalar(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return _text(value)


def name_value(meta: Meta | list[Any]) -> list[dict[str, Any]]:
    """ApiQueryImageInfo::processMetaData: {name, value} pairs, nested for arrays."""
    pairs = enumerate(meta) if isinstance(meta, list) else meta.items()
    out: list[dict[str, Any]] = []
    for key, value in pairs:
        shown = name_value(value) if isinstance(value, list | dict) else _scalar(value)
        out.append({"name": _key(key), "value": shown})
    return out


def api_fields(
    vals: dict[str, Any], meta: Meta | None, mime: str, props: set[str], version: str
) -> None:
    """`metadata` (null when there is none) and `commonmetadata` as ApiQueryImageInfo::getInfo
    adds them for the props asked for."""
    if "metadata" in props:
        shown = for_api(meta, mime, version) if meta else None
        vals["metadata"] = name_value(shown) if shown else None
    if "commonmetadata" in props:
        vals["commonmetadata"] = name_value(common(meta, mime))
