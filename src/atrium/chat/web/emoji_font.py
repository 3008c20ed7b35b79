"""An emoji font served to the chat client, so emoji do not depend on the reader's system fonts.

The font is a system package's file (Debian's `fonts-noto-color-emoji`, installed by `make run`
and `make test` where they may), never a copy in this tree. The stylesheet declares it with a
`unicode-range` of the emoji blocks only, so a browser downloads it the first time a page shows
an emoji, and uses it for those characters alone; with no font file the stylesheet is empty and
emoji come from whatever fonts the reader has.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response

FONT_PREFIX = "/static/chat-emoji/"
FAMILY = "Atrium Emoji"
# Unicode's emoji (Emoji_Presentation, and the text-default ones the emoji table names), and
# their joiners. Left out: the symbols the client draws as icons (⚙ ☰ ★ ☆ ✕ ✔ → ↑ ↓), which
# stay in the text's font, so a page without emoji never fetches the font.
_RANGES = """
    203C 2049 2139 2194-2199 21A9-21AA 231A-231B 2328 23CF 23E9-23F3 23F8-23FA 24C2 25AA-25AB
    25B6 25C0 25FB-25FE 2600-2604 260E 2611 2614-2615 2618 261D 2620 2622-2623 2626 262A
    262E-262F 2638-263A 2640 2642 2648-2653 265F-2660 2663 2665-2666 2668 267B 267E-267F
    2692-2697 269B-269C 26A0-26A1 26A7 26AA-26AB 26B0-26B1 26BD-26BE 26C4-26C5 26C8 26CE-26CF
    26D1 26D3-26D4 26E9-26EA 26F0-26F5 26F7-26FA 26FD 2702 2705 2708-270D 270F 2712 2716 271D
    2721 2728 2733-2734 2744 2747 274C 274E 2753-2755 2757 2763-2764 2795-2797 27A1 27B0 27BF
    2934-2935 2B05-2B07 2B1B-2B1C 2B50 2B55 3030 303D 3297 3299 200D FE0F 1F000-1FAFF
    E0020-E007F
"""
UNICODE_RANGE = ", ".join("U+" + part for part in _RANGES.split())
# The client's text fonts, with the emoji font first: it only covers the ranges above.
TEXT_FONTS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
_IMMUTABLE = "public, max-age=31536000, immutable"


class EmojiFont:
    """The font file (if there is one), its versioned URL and its stylesheet."""

    def __init__(self, path: Path | None) -> None:
        self.path = path if path is not None and path.is_file() else None
        self.version = ""
        if self.path is not None:
            stat = self.path.stat()
            key = f"{self.path.name}:{stat.st_size}:{stat.st_mtime_ns}".encode()
            self.version = hashlib.sha256(key).hexdigest()[:12]

    @property
    def url(self) -> str:
        assert self.path is not None
        return f"{FONT_PREFIX}{self.version}/{self.path.name}"

    def stylesheet(self) -> str:
        if self.path is None:
            return "/* No emoji font installed: emoji use the reader's own fonts. */\n"
        return (
            "/* Emoji from the server's emoji font, fetched once a page shows one. */\n"
            f'@font-face {{ font-family: "{FAMILY}"; src: url("{self.url}") format("truetype"); '
            f"unicode-range: {UNICODE_RANGE}; font-display: swap; }}\n"
            f'body, button, input, select, textarea {{ font-family: "{FAMILY}", {TEXT_FONTS}; }}\n'
        )

    async def response(self, request: Request) -> Response:
        path = self.path
        if (
            path is None
            or request.path_params["version"] != self.version
            or request.path_params["name"] != path.name
        ):
            return Response("Not Found", 404, media_type="text/plain")
        headers = {"Cache-Control": _IMMUTABLE, "X-Content-Type-Options": "nosniff"}
        return FileResponse(path, media_type="font/ttf", headers=headers)
