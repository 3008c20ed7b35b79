"""Content models: what a page holds (wikitext, CSS, JavaScript, JSON, plain text), which one a
new page gets from its title, how each is checked and normalised on save, and how each is shown.

Pure: no database. CSS and JavaScript are also parsed as wikitext for their links, templates and
categories (MediaWiki's `$wgTextModelsToParse`), but shown as escaped source; plain text is shown
escaped; JSON must be valid, is stored pretty-printed and is shown as nested tables.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

from atrium.wiki.titles import NS_MEDIAWIKI, NS_USER

WIKITEXT, CSS, JAVASCRIPT, JSON, TEXT = "wikitext", "css", "javascript", "json", "text"

# The models a page may be edited in directly, and the one format each reads and writes.
EDITABLE: dict[str, str] = {
    WIKITEXT: "text/x-wiki",
    CSS: "text/css",
    JAVASCRIPT: "text/javascript",
    JSON: "application/json",
    TEXT: "text/plain",
}
# Models whose text is run through the wikitext parser for the link tables.
PARSED = frozenset({WIKITEXT, CSS, JAVASCRIPT})
# The extension that makes a MediaWiki: page or a user subpage hold code.
_EXTENSIONS = {"css": CSS, "js": JAVASCRIPT, "json": JSON}
_CODE_TITLE = re.compile(r"\.(css|js|json)$")
_CODE_SUBPAGE = re.compile(r"/.*\.(css|js|json)$")
# PHP's default json_decode depth.
_MAX_DEPTH = 512


def default_model(ns: int, text: str) -> str:
    """The model a page of this title gets when nothing names one: code for `MediaWiki:` pages
    and user subpages ending in `.css`, `.js` or `.json`, wikitext otherwise. `text` is the
    title's text without its namespace (spaces or underscores alike)."""
    found = None
    if ns == NS_MEDIAWIKI:
        found = _CODE_TITLE.search(text)
    elif ns == NS_USER:
        found = _CODE_SUBPAGE.search(text)
    return _EXTENSIONS[found.group(1)] if found else WIKITEXT


def format_of(model: str) -> str:
    return EDITABLE.get(model, "text/x-wiki")


def name_key(model: str) -> str:
    """The message naming a model to readers (`content-model-css`: "CSS")."""
    return f"content-model-{model}"


# --- JSON --------------------------------------------------------------------------------------


class InvalidJson(ValueError):
    """The text is no JSON value: `key` is the message saying why (`json-error-syntax`, …)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_constant(name: str) -> Any:
    # NaN and Infinity are Python's extensions, not JSON.
    raise InvalidJson("json-error-syntax")


def _integer(digits: str) -> int | float:
    # PHP keeps integers of 64 bits and turns larger ones into floats.
    value = int(digits)
    return value if -(2**63) <= value < 2**63 else float(value)


def _depth(value: Any) -> int:
    depth, level = 0, [value]
    while level:
        depth += 1
        nxt: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                nxt.extend(item.values())
            elif isinstance(item, list):
                nxt.extend(item)
        level = [v for v in nxt if isinstance(v, (dict, list))]
    return depth


def decode_json(text: str) -> Any:
    """The JSON value of `text` as PHP's json_decode reads it (objects keep their key order);
    InvalidJson when it is none."""
    try:
        value = json.loads(text, parse_int=_integer, parse_constant=_no_constant)
    except RecursionError as exc:
        raise InvalidJson("json-error-depth") from exc
    except json.JSONDecodeError as exc:
        key = "json-error-ctrl-char" if "control character" in exc.msg.lower() else None
        raise InvalidJson(key or "json-error-syntax") from exc
    if _depth(value) > _MAX_DEPTH:
        raise InvalidJson("json-error-depth")
    if _has_bad_key(value):
        raise InvalidJson("json-error-invalid-property-name")
    return value


def _has_bad_key(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if any(k.startswith("\x00") for k in item):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def json_error(text: str) -> str | None:
    """The message key saying why `text` is not valid JSON, None when it is."""
    try:
        decode_json(text)
    except InvalidJson as exc:
        return exc.key
    return None


def php_float(value: float) -> str:
    """A float as PHP's json_encode writes it: the shortest digits that read back, in
    exponent form (`1.0e-7`, `1.0e+25`) below 1e-4 or from 1e17, and no `.0` on whole ones."""
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    exact = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(str(d) for d in exact.digits)
    point = len(digits) + int(exact.exponent)
    if point < -3 or point > 17:
        exponent = point - 1
        return (
            f"{sign}{digits[0]}.{digits[1:] or '0'}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"
        )
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if len(digits) <= point:
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


_STRING_ESCAPES = {
    '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
    "<": "\\u003C", ">": "\\u003E", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029",
}  # fmt: skip


def _string(value: str) -> str:
    out = []
    for char in value:
        escaped = _STRING_ESCAPES.get(char)
        if escaped is None and ord(char) < 0x20:
            escaped = f"\\u{ord(char):04x}"
        out.append(escaped or char)
    return '"' + "".join(out) + '"'


def encode_json(value: Any, indent: str | None = None, level: int = 0) -> str:
    """`value` as MediaWiki writes JSON (FormatJson, UTF-8 kept, `<>&` escaped), pretty-printed
    with `indent` per level when one is given."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return php_float(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dict):
        colon = ": " if indent is not None else ":"
        parts = [_string(k) + colon + encode_json(v, indent, level + 1) for k, v in value.items()]
        return _container("{", "}", parts, indent, level)
    parts = [encode_json(v, indent, level + 1) for v in value]
    return _container("[", "]", parts, indent, level)


def _container(open_: str, close: str, parts: list[str], indent: str | None, level: int) -> str:
    if not parts:
        return open_ + close
    if indent is None:
        return open_ + ",".join(parts) + close
    inner = "\n" + indent * (level + 1)
    return open_ + inner + ("," + inner).join(parts) + "\n" + indent * level + close


# --- saving --------------------------------------------------------------------------------------


def normalise_text(text: str) -> str:
    """TextContent's pre-save transform: one kind of line ending, no trailing whitespace."""
    return text.replace("\r\n", "\n").replace("\r", "\n").rstrip()


def pre_save(model: str, text: str) -> str:
    """The text a page of a model that is not parsed saves: plain text normalised, valid JSON
    pretty-printed with tabs (invalid JSON is refused before)."""
    if model == JSON:
        try:
            return encode_json(decode_json(text), "\t")
        except InvalidJson:
            return normalise_text(text)
    return normalise_text(text)


# --- showing -------------------------------------------------------------------------------------


def _element_text(text: str) -> str:
    """Text as an HTML element's content the way MediaWiki's Html::element escapes it."""
    return text.replace("&", "&amp;").replace("<", "&lt;")


def code_html(model: str, text: str) -> str:
    """CSS or JavaScript shown as source."""
    kind = "js" if model == JAVASCRIPT else model
    return f'<pre class="mw-code mw-{kind}" dir="ltr">\n{_element_text(text)}\n</pre>\n'


def text_html(text: str) -> str:
    """Plain text shown escaped, quotes included (htmlspecialchars, ENT_COMPAT)."""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def _primitive(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else encode_json(value)


def _cell(value: Any, empty_object: str, empty_array: str) -> str:
    if isinstance(value, dict):
        return f"<td>{_object_table(value, empty_object, empty_array)}</td>"
    if isinstance(value, list):
        return f"<td>{_array_table(value, empty_object, empty_array)}</td>"
    return f'<td class="mw-json-value">{_element_text(_primitive(value))}</td>'


def _table(rows: list[str], joiner: str) -> str:
    return f'<table class="mw-json"><tbody>{joiner.join(rows)}</tbody></table>'


def _object_table(value: dict[str, Any], empty_object: str, empty_array: str) -> str:
    rows = [
        f"<tr><th><span>{_element_text(k)}</span></th>{_cell(v, empty_object, empty_array)}</tr>"
        for k, v in value.items()
    ]
    if not rows:
        rows = [f'<tr><td class="mw-json-empty">{_element_text(empty_object)}</td></tr>']
    return _table(rows, "")


def _array_table(value: list[Any], empty_object: str, empty_array: str) -> str:
    rows = [f"<tr>{_cell(v, empty_object, empty_array)}</tr>" for v in value]
    if not rows:
        rows = [f'<tr><td class="mw-json-empty">{_element_text(empty_array)}</td></tr>']
    # Array rows are written one per line, object rows run together, as MediaWiki does.
    return _table(rows, "\n")


def json_html(text: str, empty_object: str, empty_array: str, invalid: str) -> str:
    """JSON shown as nested tables: an object as key and value rows, an array boxed in a table
    of its own, a lone value in a table marked single; `invalid` (the message) when it is not
    valid JSON."""
    try:
        value = decode_json(text)
    except InvalidJson:
        return _element_text(invalid)
    if isinstance(value, dict):
        return _object_table(value, empty_object, empty_array)
    if isinstance(value, list):
        return _array_table([value], empty_object, empty_array)
    return (
        '<table class="mw-json mw-json-single-value"><tbody><tr>'
        f"<td>{_element_text(_primitive(value))}</td></tr></tbody></table>"
    )
