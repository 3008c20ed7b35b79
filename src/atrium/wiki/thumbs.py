"""Scaled copies of PNG images without an imaging library: decode (8-bit depth, not interlaced,
every colour type, palette kept), pick the nearest source pixel for each target pixel, encode
again. Anything else is left to the caller (None)."""

from __future__ import annotations

import struct
import zlib

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    out: list[tuple[bytes, bytes]] = []
    at = len(_SIGNATURE)
    while at + 8 <= len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        out.append((kind, data[at + 8 : at + 8 + length]))
        at += 12 + length
        if kind == b"IEND":
            break
    return out


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(raw: bytes, width: int, height: int, bpp: int) -> list[bytearray]:
    stride = width * bpp
    rows: list[bytearray] = []
    previous = bytearray(stride)
    at = 0
    for _ in range(height):
        kind = raw[at]
        line = bytearray(raw[at + 1 : at + 1 + stride])
        at += 1 + stride
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            for i in range(stride):
                line[i] = (line[i] + previous[i]) & 0xFF
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                corner = previous[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + _paeth(left, previous[i], corner)) & 0xFF
        rows.append(line)
        previous = line
    return rows


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def scale_png(data: bytes, width: int) -> bytes | None:
    """The image `width` pixels wide (height in proportion, as MediaWiki rounds it); None when
    the file is not a PNG this can read or would not get smaller."""
    if not data.startswith(_SIGNATURE):
        return None
    chunks = _chunks(data)
    if not chunks or chunks[0][0] != b"IHDR":
        return None
    src_w, src_h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if depth != 8 or interlace or colour not in _CHANNELS or width <= 0 or width >= src_w:
        return None
    bpp = _CHANNELS[colour]
    try:
        raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    except zlib.error:
        return None
    if len(raw) < src_h * (1 + src_w * bpp):
        return None
    rows = _unfilter(raw, src_w, src_h, bpp)
    height = max(1, round(src_h * width / src_w))
    columns = [min(src_w - 1, (x * src_w) // width) * bpp for x in range(width)]
    out = bytearray()
    for y in range(height):
        source = rows[min(src_h - 1, (y * src_h) // height)]
        out.append(0)
        for start in columns:
            out += source[start : start + bpp]
    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    kept = b"".join(_chunk(kind, body) for kind, body in chunks if kind in (b"PLTE", b"tRNS"))
    return (
        _SIGNATURE
        + _chunk(b"IHDR", header)
        + kept
        + _chunk(b"IDAT", zlib.compress(bytes(out)))
        + _chunk(b"IEND", b"")
    )
