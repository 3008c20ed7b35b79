"""Wikitext tables as MediaWiki 1.39 makes them: Parser::handleTables turns `{|`, `|+`, `|-`,
`|`/`||`, `!`/`!!` and `|}` lines into table tags line by line (cells trimmed, attributes before a
single `|`, a row opened for a cell outside one, an empty row for a table without any, `:`-indented
tables inside `<dl><dd>`), the lines in between left for the block-level pass; `add_tbody` then
does what RemexHtml's tree building does to a row placed directly in a table."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_TABLE_START = re.compile(r"^(:*)\s*\{\|(.*)$")
_ROW = re.compile(r"^\|-+")
_PHP_TRIM = " \t\n\r\0\x0b"

Attributes = Callable[[str], str]  # Sanitizer::fixTagAttributes for an escaped attribute string


@dataclass
class _Table:
    cell_open: bool = False
    last_tag: str = ""
    row_open: bool = False
    row_attrs: str = ""
    had_row: bool = False


def handle_tables(text: str, fix_attrs: Attributes) -> str:
    """Parser::handleTables over the page text (already escaped, links and tags held)."""
    out: list[str] = []
    tables: list[_Table] = []
    indent = 0
    for raw in text.split("\n"):
        line = raw.strip(_PHP_TRIM)
        if line == "":
            out.append(raw)
            continue
        start = _TABLE_START.match(line)
        if start:
            indent = len(start.group(1))
            out.append("<dl><dd>" * indent + f"<table{fix_attrs(start.group(2))}>")
            tables.append(_Table())
            continue
        if not tables:
            out.append(raw)
            continue
        table = tables[-1]
        if line.startswith("|}"):
            tables.pop()
            closing = "</table>" + line[2:]
            if not table.had_row:
                closing = "<tr><td></td></tr>" + closing
            if table.row_open:
                closing = "</tr>" + closing
            if table.cell_open:
                closing = f"</{table.last_tag}>" + closing
            if indent > 0:
                closing = closing.rstrip(_PHP_TRIM) + "</dd></dl>" * indent
            out.append(closing)
        elif line.startswith("|-"):
            table.row_attrs = fix_attrs(_ROW.sub("", line))
            table.had_row = True
            closing = "</tr>" if table.row_open else ""
            if table.cell_open:
                closing = f"</{table.last_tag}>" + closing
            table.row_open = table.cell_open = False
            table.last_tag = ""
            out.append(closing)
        elif line[0] in "|!":
            out.append(_cells(table, line, fix_attrs))
        else:
            out.append(raw)
    tail: list[str] = []
    while tables:
        table = tables.pop()
        if table.cell_open:
            tail.append("</td>\n")
        if table.row_open:
            tail.append("</tr>\n")
        if not table.had_row:
            tail.append("<tr><td></td></tr>\n")
        tail.append("</table>\n")
    result = "\n".join(out) + ("\n" + "".join(tail) if tail else "")
    if tail:
        result = result[:-1]
    return "" if result == "<table>\n<tr><td></td></tr>\n</table>" else result


def _cells(table: _Table, line: str, fix_attrs: Attributes) -> str:
    """One line of cells (`|`, `!` or a `|+` caption), each cell starting a new one."""
    if line.startswith("|+"):
        kind, line = "caption", line[2:]
    elif line[0] == "!":
        kind, line = "th", line[1:].replace("!!", "||")
    else:
        kind, line = "td", line[1:]
    out: list[str] = []
    for cell in line.split("||"):
        previous = ""
        if kind != "caption":
            if not table.row_open:
                previous = f"<tr{table.row_attrs}>\n"
            table.row_open, table.row_attrs, table.had_row = True, "", True
        if table.cell_open:
            previous = f"</{table.last_tag}>\n{previous}"
        table.last_tag = kind
        head, bar, content = cell.partition("|")
        # A `|` inside a link is no attribute separator (T2553).
        if not bar or "[[" in head or "-{" in head:
            out.append(f"{previous}<{kind}>{cell.strip(_PHP_TRIM)}")
        else:
            out.append(f"{previous}<{kind}{fix_attrs(head)}>{content.strip(_PHP_TRIM)}")
        table.cell_open = True
    return "".join(out)


_TOKEN = re.compile(r"<(/?)(table|tbody|thead|tfoot|tr)\b[^>]*>", re.I)


def add_tbody(body: str) -> str:
    """The `<tbody>` an HTML tree builder opens for a row placed directly in a table, closed
    with the table."""
    if "<tr" not in body:
        return body
    out: list[str] = []
    stack: list[str] = []  # "table", or "tbody" when one was opened or written
    at = 0
    for match in _TOKEN.finditer(body):
        closing, name = match.group(1), match.group(2).lower()
        out.append(body[at : match.start()])
        at = match.end()
        if name == "table":
            if closing:
                while stack and stack[-1] != "table":
                    if stack.pop() == "tbody*":
                        out.append("</tbody>")
                if stack:
                    stack.pop()
            else:
                stack.append("table")
        elif name == "tr" and not closing and stack and stack[-1] == "table":
            out.append("<tbody>")
            stack.append("tbody*")
        elif name in ("tbody", "thead", "tfoot") and stack:
            if stack[-1] == "tbody*":
                stack.pop()
                out.append("</tbody>")
            if closing:
                if stack and stack[-1] == "section":
                    stack.pop()
            else:
                stack.append("section")
        out.append(match.group(0))
    out.append(body[at:])
    return "".join(out)
