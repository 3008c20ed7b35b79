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


def _scalar(value: Any) -> str:
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
    return _string(value)


def encode_json(value: Any, indent: str | None = None) -> str:
    """`value` as MediaWiki writes JSON (FormatJson, UTF-8 kept, `<>&` escaped), pretty-printed
    with `indent` per level when one is given. Walked with a stack of its own: a value may nest
    512 deep, past what Python's recursion allows."""
    out: list[str] = []
    # Finished text, or a (value, level) still to write.
    stack: list[str | tuple[Any, int]] = [(value, 0)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        current, level = item
        if not isinstance(current, (dict, list)):
            out.append(_scalar(current))
            continue
        open_, close = ("{", "}") if isinstance(current, dict) else ("[", "]")
        if not current:
            out.append(open_ + close)
            continue
        inner = "" if indent is None else "\n" + indent * (level + 1)
        pieces: list[str | tuple[Any, int]] = [open_ + inner]
        if isinstance(current, dict):
            colon = ":" if indent is None else ": "
            for n, (key, child) in enumerate(current.items()):
                pieces += [("," + inner) if n else "", _string(key) + colon, (child, level + 1)]
        else:
            for n, child in enumerate(current):
                pieces += [("," + inner) if n else "", (child, level + 1)]
        pieces.append(("" if indent is None else "\n" + indent * level) + close)
        stack.extend(reversed(pieces))
    return "".join(out)


# --- saving --------------------------------------------------------------------------------------


def normalise_text(text: str) -> str:
    """TextContent's pre-save transform: one kind of line ending, no trailing whitespace."""
    return text.replace("\r\n", "\n").replace("\r", "\n").rstrip()


def pre_save(model: str, text: str) -> str:
    """The text a page of a model that is not parsed saves: plain text normalised, JSON
    pretty-printed with tabs; InvalidJson when it is not JSON."""
    if model == JSON:
        return encode_json(decode_json(text), "\t")
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


def _tables(value: Any, empty_object: str, empty_array: str) -> str:
    """An object as a table of key and value rows, an array as a table of value rows (one per
    line, as MediaWiki writes them), nested values as tables in their cells; walked with a
    stack of its own, as `encode_json` is."""
    out: list[str] = []
    # Finished HTML, or ("table" | "cell", value) still to write.
    stack: list[str | tuple[str, Any]] = [("table", value)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        kind, current = item
        if kind == "cell":
            if isinstance(current, (dict, list)):
                stack.extend(["</td>", ("table", current), "<td>"])
            else:
                out.append(f'<td class="mw-json-value">{_element_text(_primitive(current))}</td>')
            continue
        pieces: list[str | tuple[str, Any]] = ['<table class="mw-json"><tbody>']
        if isinstance(current, dict):
            for key, child in current.items():
                pieces += [f"<tr><th><span>{_element_text(key)}</span></th>", ("cell", child)]
                pieces.append("</tr>")
            empty = empty_object
        else:
            for n, child in enumerate(current):
                pieces += ["\n<tr>" if n else "<tr>", ("cell", child), "</tr>"]
            empty = empty_array
        if not current:
            pieces.append(f'<tr><td class="mw-json-empty">{_element_text(empty)}</td></tr>')
        pieces.append("</tbody></table>")
        stack.extend(reversed(pieces))
    return "".join(out)


def json_html(text: str, empty_object: str, empty_array: str, invalid: str) -> str:
    """JSON shown as nested tables: an object as key and value rows, an array boxed in a table
    of its own, a lone value in a table marked single; `invalid` (the message) when it is not
    valid JSON."""
    try:
        value = decode_json(text)
    except InvalidJson:
        return _element_text(invalid)
    if isinstance(value, dict):
        return _tables(value, empty_object, empty_array)
    if isinstance(value, list):
        return _tables([value], empty_object, empty_array)
    return (
        '<table class="mw-json mw-json-single-value"><tbody><tr>'
        f"<td>{_element_text(_primitive(value))}</td></tr></tbody></table>"
    )
