"""The last line of defence: a strict check of the HTML the renderer produced.

The renderer escapes every piece of user text and builds each tag itself, so
this check should never fail. It runs on every render anyway and, if it does
fail, the caller falls back to escaped text: whatever bug let it through, the
output holds only allowlisted tags and attributes, balanced, with no
`javascript:`-like URL, no event handler and no comment or doctype.
"""

from __future__ import annotations

import html
import re

VOID_TAGS = frozenset({"br", "hr", "img"})
ALLOWED_TAGS = frozenset(
    {
        "a", "blockquote", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
        "li", "ol", "p", "pre", "span", "strong", "table", "tbody", "td", "th", "thead",
        "time", "tr", "ul", "video",
    }
) | VOID_TAGS  # fmt: skip
ALLOWED_ATTRIBUTES = frozenset(
    {
        "alt", "aria-hidden", "aria-label", "class", "datetime", "href", "preload", "role",
        "src", "start", "style", "title",
    }
)  # fmt: skip
URL_ATTRIBUTES = frozenset({"href", "src"})
SAFE_URL_SCHEMES = frozenset(
    {
        "http", "https", "ftp", "file", "mailto", "tel", "sms", "smsto", "bitcoin", "geo", "im",
        "irc", "ircs", "magnet", "matrix", "mms", "news", "nntp", "openpgp4fpr", "sip", "ssh",
        "urn", "webcal", "wtai", "xmpp",
    }
)  # fmt: skip

_TAG_RE = re.compile(r"<(/?)([a-z][a-z0-9]*)((?:\s+[a-z][a-z0-9-]*=\"[^\"<>]*\")*)\s*>")
_ATTR_RE = re.compile(r"\s+([a-z][a-z0-9-]*)=\"([^\"<>]*)\"")
_SCHEME_RE = re.compile(r"^([a-z][a-z0-9+.\-]*):")
_STYLE_RE = re.compile(r"^text-align: (?:left|right|center);$")
_INVISIBLE_RE = re.compile(r"[\x00-\x20\x7f-\x9f]+")


def _url_is_safe(value: str) -> bool:
    url = _INVISIBLE_RE.sub("", html.unescape(value)).lower()
    m = _SCHEME_RE.match(url)
    return m is None or m.group(1) in SAFE_URL_SCHEMES


def _attributes_are_safe(attrs: str) -> bool:
    for name, value in _ATTR_RE.findall(attrs):
        if name.startswith("data-"):
            continue
        if name not in ALLOWED_ATTRIBUTES:
            return False
        if name in URL_ATTRIBUTES and not _url_is_safe(value):
            return False
        if name == "style" and not _STYLE_RE.match(value):
            return False
    return True


def is_safe_html(markup: str) -> bool:
    """True when `markup` holds only allowlisted, balanced tags and safe attributes."""
    stack: list[str] = []
    pos = 0
    while True:
        lt = markup.find("<", pos)
        if lt < 0:
            break
        m = _TAG_RE.match(markup, lt)
        if m is None:
            return False
        closing, tag, attrs = m.groups()
        if tag not in ALLOWED_TAGS:
            return False
        if closing:
            if attrs or tag in VOID_TAGS or not stack or stack.pop() != tag:
                return False
        else:
            if attrs and not _attributes_are_safe(attrs):
                return False
            if tag not in VOID_TAGS:
                stack.append(tag)
        pos = m.end()
    # A stray ">" is harmless text, but every "<" must have opened a checked tag.
    return not stack
