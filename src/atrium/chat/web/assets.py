"""The chat client's static files: its directory plus two files generated at start-up.

Serving (content-hashed names, import rewriting, long cache lifetimes) is `core.static_assets`'.
The generated files are the code-highlighting colours from Pygments' own styles (light and dark
theme), the emoji names from the server's emoji table and the emoji font's stylesheet.
"""

from __future__ import annotations

import functools
from pathlib import Path

import orjson
from pygments.formatters import HtmlFormatter

from atrium.chat.markdown.emoji import emoji_table
from atrium.chat.web.emoji_font import EmojiFont
from atrium.chat.web.readable_colors import readable_css
from atrium.core.static_assets import StaticAssets

STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC_PREFIX = "/static/chat/"


# The code backgrounds each theme draws highlighted code on: the client's (app.css --code-bg)
# and the Pygments style's own.
LIGHT_CODE_BACKGROUNDS = ["#f3f4f6", "#f8f8f8"]
DARK_CODE_BACKGROUNDS = ["#272b33", "#272822"]


def _pygments_css() -> str:
    light = HtmlFormatter(style="default").get_style_defs(".codehilite")
    dark = HtmlFormatter(style="monokai").get_style_defs('[data-theme="dark"] .codehilite')
    light = readable_css(light, LIGHT_CODE_BACKGROUNDS)
    dark = readable_css(dark, DARK_CODE_BACKGROUNDS)
    return f"{light}\n{dark}\n"


def _emoji_module() -> str:
    """The server's own emoji names, for the client's typeahead and reaction picker."""
    names = orjson.dumps(emoji_table().name_to_codepoint).decode()
    return f"// Generated from the server's emoji table.\nexport const EMOJI = {names};\n"


class Assets(StaticAssets):
    """Every static file of the chat client, loaded once, by original and by hashed name."""

    def __init__(self, directory: Path = STATIC_DIR, emoji_font: EmojiFont | None = None) -> None:
        self.emoji_font = emoji_font or EmojiFont(None)
        super().__init__(
            directory,
            STATIC_PREFIX,
            {
                "pygments.css": _pygments_css(),
                "emoji_data.js": _emoji_module(),
                "emoji_font.css": self.emoji_font.stylesheet(),
            },
        )


@functools.cache
def client_assets(font: Path | None) -> Assets:
    """The client's files with one emoji font, read and hashed once per process: every app the
    process builds (a test's, the workspace's) serves the same files."""
    return Assets(emoji_font=EmojiFont(font))
