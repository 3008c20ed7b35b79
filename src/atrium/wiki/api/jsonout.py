"""The compact JSON of an API response (`format=json`), as ApiFormatJson writes it.

orjson does the encoding. It has no `ensure_ascii`, which formatversion 1 (and 2 with `ascii`)
asks for; but JSON's own syntax is ASCII, so a non-ASCII character in orjson's output stands in a
string, and writing each as its `\\u` escape (a surrogate pair beyond the first plane) gives the
standard library's escaped form. When orjson refuses a value (a key that is not a string, a lone
surrogate, an integer beyond 64 bits), the standard library's encoder writes the answer: the same
JSON once parsed, and never invalid UTF-8.
"""

from __future__ import annotations

import codecs
import json
from typing import Any

import orjson


def compact(body: dict[str, Any], *, escape_unicode: bool) -> bytes:
    """`body` as compact JSON; with `escape_unicode`, every non-ASCII character as a `\\u` escape of four hex digits."""
    try:
        data = orjson.dumps(body)
    except orjson.JSONEncodeError:
        return _escaped(body)
    if escape_unicode and not data.isascii():
        # The codec scans in C and calls the handler only for the non-ASCII runs.
        return data.decode().encode("ascii", _JSON_ESCAPES)
    return data


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _json_escapes(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(map(_escape, error.object[error.start : error.end])), error.end


_JSON_ESCAPES = "atrium.json-escapes"
codecs.register_error(_JSON_ESCAPES, _json_escapes)


def _escaped(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode()
