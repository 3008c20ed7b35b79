"""A lenient reading of `multipart/form-data` bodies, for the ones the strict parser refuses.

PHP, which parses MediaWiki's request bodies, accepts parts separated by bare LF line endings,
and pywikibot sends exactly those (it builds its uploads with the email package). A body that
cannot be read even so counts as empty, as PHP leaves `$_POST` empty, and the API answers in
its own envelope instead of a plain-text 400.
"""

from __future__ import annotations

import re

_NAME = re.compile(r'(?i);\s*name="([^"]*)"')
_FILENAME = re.compile(r'(?i);\s*filename="([^"]*)"')
_BOUNDARY = re.compile(r'(?i)boundary="?([^";]+)"?')


def boundary_of(content_type: str) -> str | None:
    match = _BOUNDARY.search(content_type)
    return match.group(1) if match else None


def parse(body: bytes, boundary: str) -> tuple[dict[str, str], dict[str, tuple[str, bytes]]]:
    """The text fields and the files (name -> (filename, data)); ({}, {}) when unreadable."""
    fields: dict[str, str] = {}
    files: dict[str, tuple[str, bytes]] = {}
    delimiter = b"--" + boundary.encode()
    # Every delimiter sits at the start of the body or of a line (CRLF or LF before it).
    pieces = re.split(rb"(?:^|\r?\n)" + re.escape(delimiter), body)
    if len(pieces) < 3:
        return {}, {}
    for piece in pieces[1:]:
        if piece.startswith(b"--"):
            break
        line_end = piece.find(b"\n")
        if line_end < 0:
            return {}, {}
        part = piece[line_end + 1 :]
        head_end = re.search(rb"\r?\n\r?\n", part)
        if part.startswith((b"\r\n", b"\n")):
            headers_raw, content = b"", part.split(b"\n", 1)[1]
        elif head_end is None:
            return {}, {}
        else:
            headers_raw, content = part[: head_end.start()], part[head_end.end() :]
        disposition = ""
        for line in re.split(rb"\r?\n", headers_raw):
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-disposition":
                disposition = value
        named = _NAME.search(disposition)
        if named is None:
            continue
        filename = _FILENAME.search(disposition)
        if filename is not None:
            files[named.group(1)] = (filename.group(1), content)
        else:
            fields[named.group(1)] = content.decode("utf-8", "replace")
    return fields, files
