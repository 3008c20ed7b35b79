"""Emoji: `:name:`, unicode emoji, realm (custom) emoji and emoticons.

Names and code points come from `emoji_codes.json`, in the shape of Zulip's
generated `emoji_codes.json` (`name_to_codepoint`, `codepoint_to_name`,
`emoticon_conversions`). The file shipped here is a seed subset (the emoticon
targets); dropping in the full table generated from Zulip's `tools/setup/emoji`
makes every Zulip emoji name work without code changes. A unicode emoji renders
as Zulip's `span.emoji.emoji-<codepoint>` carrying its `:name:`; a sequence the
table does not know (a newer ZWJ sequence) stays as typed, whole.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any
from xml.etree.ElementTree import Element

import regex
from markdown.inlinepatterns import InlineProcessor
from markdown.util import AtomicString

EMOJI_RE = re.compile(r"(?P<syntax>:[\w\-\+]+:)")
ZULIP_EMOJI_URL = "/static/generated/emoji/images/emoji/unicode/zulip.png"

# Unicode TR51's possible-emoji grammar: flags, keycaps, modifiers, tag
# sequences, and ZWJ chains of those.
POSSIBLE_EMOJI_RE = regex.compile(
    # The lookahead skips plain ASCII (digits are \p{Emoji}) unless it starts a keycap.
    r"""(?=[^\x00-\x7f]|[\#*0-9]\uFE0F)(?P<syntax>
\p{RI} \p{RI}
| \p{Emoji}
  (?: \p{Emoji_Modifier}
  | \uFE0F \u20E3?
  | [\U000E0020-\U000E007E]+ \U000E007F
  )?
  (?: \u200D
    (?: \p{RI} \p{RI}
    | \p{Emoji}
      (?: \p{Emoji_Modifier}
      | \uFE0F \u20E3?
      | [\U000E0020-\U000E007E]+ \U000E007F
      )?
    )
  )*)
""",
    regex.VERBOSE,
)
# A lone character that is text by default (arrows, digits, ©) is left alone.
TEXT_PRESENTATION_RE = regex.compile(r"\P{Emoji_Presentation}\u20E3?")

# Emoticons are translated only between these characters (or at the ends).
_EMOTICON_TERMINALS = ",.;?!()\\[\\] \"'\\n\\t"


class EmojiTable:
    """Name -> code point and code point -> canonical name."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.name_to_codepoint: dict[str, str] = data["name_to_codepoint"]
        self.codepoint_to_name: dict[str, str] = data["codepoint_to_name"]
        self.emoticon_conversions: dict[str, str] = data["emoticon_conversions"]
        alternatives = "|".join(re.escape(e) for e in self.emoticon_conversions)
        self.emoticon_re = re.compile(
            f"(?<![^{_EMOTICON_TERMINALS}])(?P<emoticon>{alternatives})(?![^{_EMOTICON_TERMINALS}])"
        )


@lru_cache(maxsize=1)
def emoji_table() -> EmojiTable:
    raw = resources.files(__package__).joinpath("emoji_codes.json").read_text("utf-8")
    return EmojiTable(json.loads(raw))


def hex_codepoint(emoji: str) -> str:
    """`🤷‍♀️` -> `1f937-200d-2640`: code points of the unqualified form (no U+FE0F)."""
    return "-".join(f"{ord(c):04x}" for c in emoji.replace("\ufe0f", ""))


def make_emoji_span(codepoint: str, display: str) -> Element:
    title = display[1:-1].replace("_", " ")
    span = Element("span")
    span.set("class", f"emoji emoji-{codepoint}")
    span.set("title", title)
    span.set("role", "img")
    span.set("aria-label", title)
    span.text = AtomicString(display)
    return span


def make_image_emoji(src: str, display: str) -> Element:
    img = Element("img")
    img.set("src", src)
    img.set("class", "emoji")
    img.set("alt", display)
    img.set("title", display[1:-1].replace("_", " "))
    return img


Handled = tuple[Element | None, int | None, int | None]
_NO_MATCH: tuple[None, None, None] = (None, None, None)


class EmojiNameProcessor(InlineProcessor):  # type: ignore[misc]
    """`:name:` for realm emoji, `:zulip:` and the unicode table."""

    def __init__(self, md: Any) -> None:
        super().__init__(EMOJI_RE.pattern, md)
        self.compiled_re = EMOJI_RE
        self.table = emoji_table()

    def handleMatch(self, m: re.Match[str], data: str) -> Handled:
        syntax = m.group("syntax")
        name = syntax[1:-1]
        realm_url = self.md.zulip_ctx.realm_emoji.get(name)
        if realm_url is not None:
            return make_image_emoji(realm_url, syntax), m.start(), m.end()
        if name == "zulip":
            return make_image_emoji(ZULIP_EMOJI_URL, syntax), m.start(), m.end()
        codepoint = self.table.name_to_codepoint.get(name)
        if codepoint is None:
            return _NO_MATCH
        return make_emoji_span(codepoint, syntax), m.start(), m.end()


class EmoticonProcessor(InlineProcessor):  # type: ignore[misc]
    """`:)` -> `:smile:` when the sender turned emoticon translation on."""

    def __init__(self, md: Any) -> None:
        self.table = emoji_table()
        super().__init__(self.table.emoticon_re.pattern, md)
        self.compiled_re = self.table.emoticon_re

    def handleMatch(self, m: re.Match[str], data: str) -> Handled:
        if not self.md.zulip_ctx.translate_emoticons:
            return _NO_MATCH
        display = self.table.emoticon_conversions[m.group("emoticon")]
        codepoint = self.table.name_to_codepoint.get(display[1:-1])
        if codepoint is None:
            return _NO_MATCH
        return make_emoji_span(codepoint, display), m.start(), m.end()


class UnicodeEmojiProcessor(InlineProcessor):  # type: ignore[misc]
    def __init__(self, md: Any) -> None:
        super().__init__(r"(?!)", md)
        self.compiled_re = POSSIBLE_EMOJI_RE
        self.table = emoji_table()

    def handleMatch(self, m: Any, data: str) -> Handled:
        syntax = m.group("syntax")
        if TEXT_PRESENTATION_RE.fullmatch(syntax):
            return _NO_MATCH
        codepoint = hex_codepoint(syntax)
        name = self.table.codepoint_to_name.get(codepoint)
        if name is None:
            return _NO_MATCH
        return make_emoji_span(codepoint, f":{name}:"), m.start(), m.end()
