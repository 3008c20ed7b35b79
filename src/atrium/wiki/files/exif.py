"""EXIF as MediaWiki 1.39's Exif class keeps it: what PHP's exif_read_data gives for IFD0, the
Exif IFD and the GPS IFD (entries named as PHP names them, rationals as "n/d" strings, raw bytes
for BYTE and UNDEFINED, a list when there are several values), filtered by the type and count
MediaWiki expects for each tag, then collapsed (GPS positions as numbers, character-coded
comments decoded, GPSVersionID). Read from the TIFF structure entry by entry, with each entry's
type and count, because that is what MediaWiki validates; Pillow's reader folds counts and types
away (and warns on counts it does not expect)."""

from __future__ import annotations

import re
import struct
from typing import Any

Meta = dict[Any, Any]


_BYTE, _ASCII, _SHORT, _LONG, _RATIONAL, _SHORT_OR_LONG, _UNDEFINED = 1, 2, 3, 4, 5, 6, 7
_SLONG, _SRATIONAL, _IGNORE = 9, 10, -1

# Exif::$mExifTags by section, under the tag numbers PHP's exif_read_data names them by. Tags
# whose PHP name differs from MediaWiki's never pass MediaWiki's filter and are left out:
# PixelX/YDimension ("ExifImageWidth"), SpectralSensitivity ("SpectralSensity"), SubjectArea
# (0x9214 is "SubjectLocation" to PHP), GPSProcessingMethod ("GPSProcessingMode").
_IFD0: dict[int, tuple[str, int, int]] = {
    0x0100: ("ImageWidth", _SHORT_OR_LONG, 1),
    0x0101: ("ImageLength", _SHORT_OR_LONG, 1),
    0x0102: ("BitsPerSample", _SHORT, 3),
    0x0103: ("Compression", _SHORT, 1),
    0x0106: ("PhotometricInterpretation", _SHORT, 1),
    0x0112: ("Orientation", _SHORT, 1),
    0x0115: ("SamplesPerPixel", _SHORT, 1),
    0x011C: ("PlanarConfiguration", _SHORT, 1),
    0x0212: ("YCbCrSubSampling", _SHORT, 2),
    0x0213: ("YCbCrPositioning", _SHORT, 1),
    0x011A: ("XResolution", _RATIONAL, 1),
    0x011B: ("YResolution", _RATIONAL, 1),
    0x0128: ("ResolutionUnit", _SHORT, 1),
    0x0111: ("StripOffsets", _SHORT_OR_LONG, 1),
    0x0116: ("RowsPerStrip", _SHORT_OR_LONG, 1),
    0x0117: ("StripByteCounts", _SHORT_OR_LONG, 1),
    0x0201: ("JPEGInterchangeFormat", _SHORT_OR_LONG, 1),
    0x0202: ("JPEGInterchangeFormatLength", _SHORT_OR_LONG, 1),
    0x012D: ("TransferFunction", _IGNORE, 1),
    0x013E: ("WhitePoint", _RATIONAL, 2),
    0x013F: ("PrimaryChromaticities", _RATIONAL, 6),
    0x0211: ("YCbCrCoefficients", _RATIONAL, 3),
    0x0214: ("ReferenceBlackWhite", _RATIONAL, 6),
    0x0132: ("DateTime", _ASCII, 1),
    0x010E: ("ImageDescription", _ASCII, 1),
    0x010F: ("Make", _ASCII, 1),
    0x0110: ("Model", _ASCII, 1),
    0x0131: ("Software", _ASCII, 1),
    0x013B: ("Artist", _ASCII, 1),
    0x8298: ("Copyright", _ASCII, 1),
}
_EXIF: dict[int, tuple[str, int, int]] = {
    0x9000: ("ExifVersion", _UNDEFINED, 1),
    0xA000: ("FlashPixVersion", _UNDEFINED, 1),
    0xA001: ("ColorSpace", _SHORT, 1),
    0x9101: ("ComponentsConfiguration", _UNDEFINED, 1),
    0x9102: ("CompressedBitsPerPixel", _RATIONAL, 1),
    0x927C: ("MakerNote", _IGNORE, 1),
    0x9286: ("UserComment", _UNDEFINED, 1),
    0xA004: ("RelatedSoundFile", _ASCII, 1),
    0x9003: ("DateTimeOriginal", _ASCII, 1),
    0x9004: ("DateTimeDigitized", _ASCII, 1),
    0x9290: ("SubSecTime", _ASCII, 1),
    0x9291: ("SubSecTimeOriginal", _ASCII, 1),
    0x9292: ("SubSecTimeDigitized", _ASCII, 1),
    0x829A: ("ExposureTime", _RATIONAL, 1),
    0x829D: ("FNumber", _RATIONAL, 1),
    0x8822: ("ExposureProgram", _SHORT, 1),
    0x8827: ("ISOSpeedRatings", _SHORT, 1),
    0x8828: ("OECF", _IGNORE, 1),
    0x9201: ("ShutterSpeedValue", _SRATIONAL, 1),
    0x9202: ("ApertureValue", _RATIONAL, 1),
    0x9203: ("BrightnessValue", _SRATIONAL, 1),
    0x9204: ("ExposureBiasValue", _SRATIONAL, 1),
    0x9205: ("MaxApertureValue", _RATIONAL, 1),
    0x9206: ("SubjectDistance", _RATIONAL, 1),
    0x9207: ("MeteringMode", _SHORT, 1),
    0x9208: ("LightSource", _SHORT, 1),
    0x9209: ("Flash", _SHORT, 1),
    0x920A: ("FocalLength", _RATIONAL, 1),
    0x9214: ("SubjectLocation", _SHORT, 2),
    0xA20B: ("FlashEnergy", _RATIONAL, 1),
    0xA20C: ("SpatialFrequencyResponse", _IGNORE, 1),
    0xA20E: ("FocalPlaneXResolution", _RATIONAL, 1),
    0xA20F: ("FocalPlaneYResolution", _RATIONAL, 1),
    0xA210: ("FocalPlaneResolutionUnit", _SHORT, 1),
    0xA214: ("SubjectLocation", _SHORT, 2),
    0xA215: ("ExposureIndex", _RATIONAL, 1),
    0xA217: ("SensingMethod", _SHORT, 1),
    0xA300: ("FileSource", _UNDEFINED, 1),
    0xA301: ("SceneType", _UNDEFINED, 1),
    0xA302: ("CFAPattern", _IGNORE, 1),
    0xA401: ("CustomRendered", _SHORT, 1),
    0xA402: ("ExposureMode", _SHORT, 1),
    0xA403: ("WhiteBalance", _SHORT, 1),
    0xA404: ("DigitalZoomRatio", _RATIONAL, 1),
    0xA405: ("FocalLengthIn35mmFilm", _SHORT, 1),
    0xA406: ("SceneCaptureType", _SHORT, 1),
    0xA407: ("GainControl", _SHORT, 1),
    0xA408: ("Contrast", _SHORT, 1),
    0xA409: ("Saturation", _SHORT, 1),
    0xA40A: ("Sharpness", _SHORT, 1),
    0xA40B: ("DeviceSettingDescription", _IGNORE, 1),
    0xA40C: ("SubjectDistanceRange", _SHORT, 1),
    0xA420: ("ImageUniqueID", _ASCII, 1),
}
_GPS: dict[int, tuple[str, int, int]] = {
    0x00: ("GPSVersion", _UNDEFINED, 1),
    0x01: ("GPSLatitudeRef", _ASCII, 1),
    0x02: ("GPSLatitude", _RATIONAL, 3),
    0x03: ("GPSLongitudeRef", _ASCII, 1),
    0x04: ("GPSLongitude", _RATIONAL, 3),
    0x05: ("GPSAltitudeRef", _UNDEFINED, 1),
    0x06: ("GPSAltitude", _RATIONAL, 1),
    0x07: ("GPSTimeStamp", _RATIONAL, 3),
    0x08: ("GPSSatellites", _ASCII, 1),
    0x09: ("GPSStatus", _ASCII, 1),
    0x0A: ("GPSMeasureMode", _ASCII, 1),
    0x0B: ("GPSDOP", _RATIONAL, 1),
    0x0C: ("GPSSpeedRef", _ASCII, 1),
    0x0D: ("GPSSpeed", _RATIONAL, 1),
    0x0E: ("GPSTrackRef", _ASCII, 1),
    0x0F: ("GPSTrack", _RATIONAL, 1),
    0x10: ("GPSImgDirectionRef", _ASCII, 1),
    0x11: ("GPSImgDirection", _RATIONAL, 1),
    0x12: ("GPSMapDatum", _ASCII, 1),
    0x13: ("GPSDestLatitudeRef", _ASCII, 1),
    0x14: ("GPSDestLatitude", _RATIONAL, 3),
    0x15: ("GPSDestLongitudeRef", _ASCII, 1),
    0x16: ("GPSDestLongitude", _RATIONAL, 3),
    0x17: ("GPSDestBearingRef", _ASCII, 1),
    0x18: ("GPSDestBearing", _RATIONAL, 1),
    0x19: ("GPSDestDistanceRef", _ASCII, 1),
    0x1A: ("GPSDestDistance", _RATIONAL, 1),
    0x1C: ("GPSAreaInformation", _UNDEFINED, 1),
    0x1D: ("GPSDateStamp", _ASCII, 1),
    0x1E: ("GPSDifferential", _SHORT, 1),
}
_TYPE_SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8}
_MAX_LONG = 4294967296


def _php_value(typ: int, count: int, raw: bytes, endian: str) -> Any:
    """One entry as exif_read_data gives it: a string for ASCII (up to its first NUL), BYTE and
    UNDEFINED; numbers, "n/d" rationals, a list when there are several."""
    if typ == 2:
        return raw.split(b"\0", 1)[0]
    if typ in (1, 6, 7):
        return raw
    fmt = {3: "H", 4: "I", 8: "h", 9: "i", 11: "f", 12: "d"}.get(typ)
    values: list[Any]
    if fmt is not None:
        values = list(struct.unpack(f"{endian}{count}{fmt}", raw))
    else:
        pair = "I" if typ == 5 else "i"
        nums = struct.unpack(f"{endian}{count * 2}{pair}", raw)
        values = [f"{nums[i]}/{nums[i + 1]}" for i in range(0, len(nums), 2)]
    return values[0] if count == 1 else values


def _read_ifd(tiff: bytes, offset: int, endian: str) -> list[tuple[int, Any]]:
    if offset <= 0 or offset + 2 > len(tiff):
        return []
    (count,) = struct.unpack(f"{endian}H", tiff[offset : offset + 2])
    entries: list[tuple[int, Any]] = []
    for i in range(count):
        at = offset + 2 + 12 * i
        if at + 12 > len(tiff):
            break
        tag, typ, n = struct.unpack(f"{endian}HHI", tiff[at : at + 8])
        size = _TYPE_SIZES.get(typ)
        if size is None or n == 0:
            continue
        total = size * n
        if total <= 4:
            raw = tiff[at + 8 : at + 8 + total]
        else:
            (where,) = struct.unpack(f"{endian}I", tiff[at + 8 : at + 12])
            raw = tiff[where : where + total]
        if len(raw) < total:
            continue
        entries.append((tag, _php_value(typ, n, raw, endian)))
    return entries


def _is_int(value: Any, top: int, low: int = 0) -> bool:
    if isinstance(value, bytes):
        text = value.decode("latin-1")
        if not re.fullmatch(r"-?\d+", text):
            return False
        value = int(text)
    return isinstance(value, int) and low <= value <= top


def _valid_one(typ: int, value: Any) -> bool:
    if typ == _BYTE:
        return _is_int(value, 255)
    if typ == _ASCII:
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        return (
            isinstance(text, str)
            and re.search(r"[^\x0a\x20-\x7e]", text) is None
            and text.strip(" \t\n\r\x0b\x0c") != ""
        )
    if typ == _SHORT:
        return _is_int(value, 65536)
    if typ in (_LONG, _SHORT_OR_LONG):
        return _is_int(value, _MAX_LONG)
    if typ == _RATIONAL:
        m = re.fullmatch(r"(\d+)/(\d+[1-9]|[1-9]\d*)", value) if isinstance(value, str) else None
        return m is not None and int(m[1]) <= _MAX_LONG and int(m[2]) <= _MAX_LONG
    if typ == _UNDEFINED:
        return True
    if typ == _SLONG:
        return _is_int(value, _MAX_LONG, -_MAX_LONG)
    if typ == _SRATIONAL:
        m = re.fullmatch(r"(-?\d+)/(\d+[1-9]|[1-9]\d*)", value) if isinstance(value, str) else None
        return m is not None and abs(int(m[1])) <= _MAX_LONG
    return False


def _valid(typ: int, count: int, value: Any) -> bool:
    """Exif::validate: a list must have the expected count, each element valid."""
    if isinstance(value, list):
        if len(value) != count:
            return False
        if len(value) > 1:
            return all(_valid_one(typ, v) for v in value)
        value = value[0]
    return _valid_one(typ, value)


def utf8_or_1252(raw: bytes) -> str:
    """Text that is not valid UTF-8 taken as Windows-1252, as MediaWiki's extractors do."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", "ignore")


def _char_code_string(data: Meta, prop: str, byte_order: str) -> None:
    raw = data.get(prop)
    if raw is None:
        return
    raw = raw if isinstance(raw, bytes) else str(raw).encode("latin-1", "replace")
    if len(raw) <= 8:
        del data[prop]
        return
    code, body = raw[:8], raw[8:]
    if code == b"JIS\0\0\0\0\0":
        val = body.decode("shift_jis", "ignore")
    elif code == b"UNICODE\0":
        val = body.decode("utf-16-be" if byte_order == "BE" else "utf-16-le", "ignore")
    else:
        val = utf8_or_1252(body)
    val = val.strip(" \t\n\r\0\x0b")
    if val == "":
        del data[prop]
    else:
        data[prop] = val


def _gps_to_number(data: Meta, prop: str) -> None:
    loc, ref = data.get(prop), data.get(prop + "Ref")
    result: float | None = None
    if loc is not None and ref in (b"N", b"S", b"E", b"W"):

        def part(text: str) -> float:
            num, _, den = text.partition("/")
            return int(num) / int(den)

        if isinstance(loc, list) and len(loc) == 3:
            result = part(loc[0])
            result += part(loc[1]) * (1 / 60)
            result += part(loc[2]) * (1 / 3600)
        elif isinstance(loc, str):
            result = part(loc)
        if result and ref in (b"S", b"W"):
            result *= -1
    data.pop(prop + "Ref", None)
    if result is not None:
        data[prop] = result
    else:
        data.pop(prop, None)


def _collapse(data: Meta, byte_order: str) -> None:
    """Exif::collapseData."""
    for prop in ("GPSLatitude", "GPSDestLatitude", "GPSLongitude", "GPSDestLongitude"):
        _gps_to_number(data, prop)
    if "GPSAltitude" in data:
        num, _, den = str(data["GPSAltitude"]).partition("/")
        altitude = int(num) / int(den)
        data["GPSAltitude"] = altitude
        if "GPSAltitudeRef" in data:
            ref = data["GPSAltitudeRef"]
            if ref == b"\1":
                data["GPSAltitude"] = -altitude
            elif ref != b"\0":
                del data["GPSAltitude"]
    data.pop("GPSAltitudeRef", None)
    for prop in ("FileSource", "SceneType"):
        if prop in data:
            value = data[prop]
            data[prop] = value[0] if isinstance(value, bytes) and value else 0
    for prop in ("UserComment", "GPSProcessingMethod", "GPSAreaInformation"):
        _char_code_string(data, prop, byte_order)
    if "ComponentsConfiguration" in data:
        value = data["ComponentsConfiguration"]
        raw = value if isinstance(value, bytes) else str(value).encode("latin-1", "replace")
        config: Meta = dict(enumerate(raw))
        config["_type"] = "ol"
        data["ComponentsConfiguration"] = config
    if "GPSVersion" in data:
        value = data.pop("GPSVersion")
        raw = value if isinstance(value, bytes) else str(value).encode("latin-1", "replace")
        version = ".".join(str(b) for b in raw)
        data["GPSVersionID"] = version[::-1] if byte_order == "LE" else version


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def read_exif(tiff: bytes) -> tuple[Meta, str]:
    """The filtered, collapsed EXIF of a TIFF structure (an APP1 "Exif" payload after its
    six-byte header) and its byte order."""
    if tiff[:2] == b"II":
        endian, byte_order = "<", "LE"
    elif tiff[:2] == b"MM":
        endian, byte_order = ">", "BE"
    else:
        return {}, "BE"
    (first,) = struct.unpack(f"{endian}I", tiff[4:8])
    ifd0 = _read_ifd(tiff, first, endian)
    sections: list[tuple[dict[int, tuple[str, int, int]], list[tuple[int, Any]]]] = [(_IFD0, ifd0)]
    pointers = dict(ifd0)
    for pointer, table in ((0x8769, _EXIF), (0x8825, _GPS)):
        offset = pointers.get(pointer)
        if isinstance(offset, int):
            sections.append((table, _read_ifd(tiff, offset, endian)))
    data: Meta = {}
    for table, entries in sections:
        for tag, value in entries:
            known = table.get(tag)
            if known is None:
                continue
            name, typ, count = known
            if _valid(typ, count, value):
                data[name] = value
    _collapse(data, byte_order)
    return _jsonable(data), byte_order
