"""The compact JSON of an API response (`format=json`), as ApiFormatJson writes it.

orjson does the encoding. It has no `ensure_ascii`, which formatversion 1 (and 2 with `ascii`)
asks for; but most answers hold ASCII only, and for those its output already is the escaped form.
When it is not, or when orjson refuses a value (a key that is not a string, a lone surrogate, an
integer beyond 64 bits), the standard library's encoder writes the answer with every non-ASCII
character escaped: the same JSON once parsed, and never invalid UTF-8.
"""

from __future__ import annotations

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
        return _escaped(body)
    return data


def _escaped(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode()
