"""The last line of defence: a strict check of the HTML the renderer produced.

The renderer escapes every piece of user text and builds each tag itself, so
this check should never fail. It runs on every render anyway and, if it does
fail, the caller falls back to escaped text: whatever bug let it through, the
output holds only allowlisted tags and attributes, balanced, with no
`javascript:`-like URL, no event handler and no comment or doctype.

KaTeX's output (math) adds MathML elements, SVG (`svg` holding self-closed
`path`/`line`, attributes in single quotes) and inline styles; a style may only
hold declarations of allowlisted properties whose values are lengths, numbers,
keywords or colours (no parentheses, quotes or backslashes, so no `url()`,
`expression()` or CSS escapes), checked after entity decoding.
"""

from __future__ import annotations

import html
import re

VOID_TAGS = frozenset({"br", "hr", "img"})
# Written `<path .../>`; SVG's own void elements.
SELF_CLOSING_TAGS = frozenset({"line", "path"})
MATHML_TAGS = frozenset(
    {
        "annotation", "math", "menclose", "mfrac", "mi", "mn", "mo", "mover", "mpadded",
        "mphantom", "mroot", "mrow", "ms", "mspace", "msqrt", "mstyle", "msub", "msubsup",
        "msup", "mtable", "mtd", "mtext", "mtr", "munder", "munderover", "semantics",
    }
)  # fmt: skip
ALLOWED_TAGS = (
    frozenset(
        {
            "a", "blockquote", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
            "li", "ol", "p", "pre", "span", "strong", "table", "tbody", "td", "th", "thead",
            "time", "tr", "ul", "video", "svg",
        }
    )
    | VOID_TAGS
    | SELF_CLOSING_TAGS
    | MATHML_TAGS
)  # fmt: skip
# Compared in lower case (HTML attribute names are case-insensitive).
ALLOWED_ATTRIBUTES = frozenset(
    {
        "alt", "aria-hidden", "aria-label", "class", "datetime", "href", "preload", "role",
        "src", "start", "style", "title",
        # MathML, as KaTeX writes it.
        "accent", "accentunder", "columnalign", "columnlines", "columnspacing", "depth",
        "display", "displaystyle", "encoding", "fence", "height", "linebreak",
        "linethickness", "lspace", "mathbackground", "mathcolor", "mathsize", "mathvariant",
        "maxsize", "minsize", "notation", "rowlines", "rowspacing", "rspace", "scriptlevel",
        "separator", "stretchy", "voffset", "width", "xmlns",
        # SVG, as KaTeX writes it.
        "d", "preserveaspectratio", "stroke-width", "viewbox", "x1", "x2", "y1", "y2",
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
XML_NAMESPACES = frozenset({"http://www.w3.org/1998/Math/MathML", "http://www.w3.org/2000/svg"})
# Elements that may carry KaTeX's styles; any other may only align text.
STYLED_TAGS = frozenset({"span", "svg", "line", "path"}) | MATHML_TAGS
STYLE_PROPERTIES = frozenset(
    {
        "background-color", "border", "border-bottom-width", "border-color",
        "border-right-style", "border-right-width", "border-style", "border-top-width",
        "border-width", "bottom", "color", "height", "left", "margin", "margin-left",
        "margin-right", "min-width", "padding-left", "position", "top",
        "vertical-align", "width",
    }
)  # fmt: skip

_TAG_RE = re.compile(
    r"""<(/?)([a-z][a-z0-9]*)((?:\s+[a-zA-Z][a-zA-Z0-9-]*=(?:"[^"<>]*"|'[^'<>]*'))*)\s*(/?)>"""
)
_ATTR_RE = re.compile(r"""\s+([a-zA-Z][a-zA-Z0-9-]*)=(?:"([^"<>]*)"|'([^'<>]*)')""")
_SCHEME_RE = re.compile(r"^([a-z][a-z0-9+.\-]*):")
_TEXT_ALIGN_RE = re.compile(r"^text-align: (?:left|right|center);$")
_DECLARATION_RE = re.compile(r"\s*([a-z-]+)\s*:\s*([#a-zA-Z0-9.%\s-]*?)\s*")
_INVISIBLE_RE = re.compile(r"[\x00-\x20\x7f-\x9f]+")


def _url_is_safe(value: str) -> bool:
    url = _INVISIBLE_RE.sub("", html.unescape(value)).lower()
    m = _SCHEME_RE.match(url)
    return m is None or m.group(1) in SAFE_URL_SCHEMES


def _style_is_safe(tag: str, value: str) -> bool:
    if tag not in STYLED_TAGS:
        # Table cells: alignment only.
        return _TEXT_ALIGN_RE.match(value) is not None
    for declaration in html.unescape(value).split(";"):
        if not declaration.strip():
            continue
        m = _DECLARATION_RE.fullmatch(declaration)
        if m is None or m.group(1) not in STYLE_PROPERTIES:
            return False
        if m.group(1) == "position" and m.group(2) != "relative":
            return False
    return True


# Verdicts on (tag, attributes) strings already checked: messages repeat the
# same few (`class="user-mention" data-user-id="7"`, KaTeX's struts). The check
# is a pure function of the pair, so a remembered verdict is the same verdict.
_verdicts: dict[tuple[str, str], bool] = {}
MAX_REMEMBERED_VERDICTS = 4096


def _attributes_are_safe(tag: str, attrs: str) -> bool:
    key = (tag, attrs)
    verdict = _verdicts.get(key)
    if verdict is None:
        verdict = _check_attributes(tag, attrs)
        if len(_verdicts) >= MAX_REMEMBERED_VERDICTS:
            _verdicts.clear()
        _verdicts[key] = verdict
    return verdict


def _check_attributes(tag: str, attrs: str) -> bool:
    for name, double_quoted, single_quoted in _ATTR_RE.findall(attrs):
        name = name.lower()
        value = double_quoted or single_quoted
        if name.startswith("data-"):
            continue
        if name not in ALLOWED_ATTRIBUTES:
            return False
        if name in URL_ATTRIBUTES and not _url_is_safe(value):
            return False
        if name == "style" and not _style_is_safe(tag, value):
            return False
        if name == "xmlns" and value not in XML_NAMESPACES:
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
        closing, tag, attrs, self_closed = m.groups()
        if tag not in ALLOWED_TAGS:
            return False
        if closing:
            if attrs or self_closed or tag in VOID_TAGS or not stack or stack.pop() != tag:
                return False
        else:
            if attrs and not _attributes_are_safe(tag, attrs):
                return False
            if self_closed:
                if tag not in SELF_CLOSING_TAGS:
                    return False
            elif tag not in VOID_TAGS:
                stack.append(tag)
        pos = m.end()
    # A stray ">" is harmless text, but every "<" must have opened a checked tag.
    return not stack
