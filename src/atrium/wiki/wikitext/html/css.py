"""Inline `style` values as MediaWiki's Sanitizer::checkCss lets them through.

Escapes and comments are undone first (`\\75 rl(`, `u/**/rl(`, full-width and small-capital look-
alikes), then a value naming anything that loads a resource or runs script (`url(`, `image(`,
`image-set(`, `-webkit-image-set(`, `attr(… url`, `expression`, `filter:`, `accelerator:`, the
`-o-link` family, `@import`, `behavior`, `-moz-binding`, `javascript:`) or holding a control
character becomes MediaWiki's `/* insecure input */`: a reader's browser must fetch nothing the
editor chose.
"""

from __future__ import annotations

import re
import unicodedata

INSECURE = "/* insecure input */"
INVALID_CONTROL = "/* invalid control char */"

_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\r\n\f]?|(\n|\r\n|\r|\f)|(.))", re.S)
_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.S)
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f\ufffd]")
# Sanitizer::normalizeCss's look-alikes that browsers read as ASCII in keywords.
_LOOKALIKES = str.maketrans({"ʀ": "r", "ɴ": "n", "ⁿ": "n", "ʟ": "l", "ɪ": "i", "⁽": "(", "₍": "("})
_INSECURE = re.compile(
    r"""expression
      | filter\s*:
      | accelerator\s*:
      | -o-link\s*:
      | -o-link-source\s*:
      | -o-replace\s*:
      | url\s*\(
      | image\s*\(
      | image-set\s*\(
      | attr\s*\([^)]+[\s,]+url
      | @import
      | behavior
      | -moz-binding
      | javascript\s*:
    """,
    re.I | re.X,
)


def _unescape(match: re.Match[str]) -> str:
    if match.group(1) is not None:
        code = int(match.group(1), 16)
        return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
    if match.group(2) is not None:
        return ""  # an escaped line break continues the string
    return match.group(3)


def normalize_css(value: str) -> str:
    """The value as a browser reads it: escapes decoded, comments removed, look-alikes folded."""
    value = _ESCAPE.sub(_unescape, value)
    value = _COMMENT.sub(" ", value)
    return unicodedata.normalize("NFKC", value).translate(_LOOKALIKES)


def check_css(value: str) -> str:
    """The style value to write, or MediaWiki's comment in place of an unsafe one."""
    normalized = normalize_css(value)
    if _CONTROL.search(normalized):
        return INVALID_CONTROL
    if _INSECURE.search(normalized):
        return INSECURE
    return normalized
