"""Character references written in wikitext (`&times;`, `&nbsp;`, `&#215;`) stay references in
the HTML, as MediaWiki's Sanitizer::normalizeCharReferences keeps them; an invalid one shows as
text (`&amp;bogus;`).

The renderer escapes every `&` of the source first, so this undoes that for valid references, in
text content only (never inside a tag, so attributes and URLs are left as they are).
"""

from __future__ import annotations

import re
from html.entities import html5

_TEXT_OR_TAG = re.compile(r"(<[^>]*>)")
_ESCAPED_REF = re.compile(r"&amp;(#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z][A-Za-z0-9]{0,31});")


def _valid_codepoint(value: int) -> bool:
    """Sanitizer::validateCodepoint."""
    return (
        value in (0x09, 0x0A, 0x0D)
        or 0x20 <= value <= 0xD7FF
        or 0xE000 <= value <= 0xFFFD
        or 0x10000 <= value <= 0x10FFFF
    )


def _restore(match: re.Match[str]) -> str:
    ref = match.group(1)
    if ref.startswith("#"):
        value = int(ref[2:], 16) if ref[1] in "xX" else int(ref[1:])
        return f"&{ref};" if _valid_codepoint(value) else match.group(0)
    return f"&{ref};" if f"{ref};" in html5 else match.group(0)


def restore_char_refs(body: str) -> str:
    parts = _TEXT_OR_TAG.split(body)
    for i in range(0, len(parts), 2):  # even parts are text, odd ones tags
        if "&amp;" in parts[i]:
            parts[i] = _ESCAPED_REF.sub(_restore, parts[i])
    return "".join(parts)


_REF = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")


def _decode(match: re.Match[str]) -> str:
    ref = match.group(1)
    if ref.startswith("#"):
        value = int(ref[2:], 16) if ref[1] in "xX" else int(ref[1:])
        return chr(value) if _valid_codepoint(value) else "\ufffd"
    return html5.get(f"{ref};", match.group(0))


def decode_char_refs(text: str) -> str:
    """Sanitizer::decodeCharReferences: each valid reference as its character, an invalid code
    point as U+FFFD, an unknown name left as written (what a category sort key is read as)."""
    return _REF.sub(_decode, text) if "&" in text else text
