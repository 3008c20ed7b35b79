"""Which emoji a reaction or a status names: Zulip 7's `emoji_name_to_emoji_code` and
`check_emoji_request`, with their error messages.

An emoji is (name, code, reaction_type): a unicode emoji's code is its code point(s) in hex, a
custom emoji's code is its id (as a string), and Zulip's own `:zulip:` is "zulip".
"""

from __future__ import annotations

from collections.abc import Mapping

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.markdown.emoji import emoji_table

REACTION_TYPES = (schema.REACTION_UNICODE, schema.REACTION_REALM, schema.REACTION_ZULIP_EXTRA)


def code_for_name(name: str, realm_emoji: Mapping[str, str]) -> tuple[str, str]:
    """(code, reaction_type) of an emoji name; custom emoji (id -> name) win over unicode ones."""
    for emoji_id, emoji_name in realm_emoji.items():
        if emoji_name == name:
            return emoji_id, schema.REACTION_REALM
    if name == "zulip":
        return "zulip", schema.REACTION_ZULIP_EXTRA
    code = emoji_table().name_to_codepoint.get(name)
    if code is None:
        raise ChatError(f"Emoji '{name}' does not exist")
    return code, schema.REACTION_UNICODE


def check_emoji(name: str, code: str, reaction_type: str, realm_emoji: Mapping[str, str]) -> None:
    """That name, code and type agree, as Zulip checks a reaction or status emoji."""
    if reaction_type == schema.REACTION_REALM:
        if code not in realm_emoji:
            raise ChatError("Invalid custom emoji.")
        if realm_emoji[code] != name:
            raise ChatError("Invalid custom emoji name.")
    elif reaction_type == schema.REACTION_ZULIP_EXTRA:
        if code != "zulip":
            raise ChatError("Invalid emoji code.")
        if name != "zulip":
            raise ChatError("Invalid emoji name.")
    elif reaction_type == schema.REACTION_UNICODE:
        table = emoji_table()
        if code not in table.codepoint_to_name:
            raise ChatError("Invalid emoji code.")
        if table.name_to_codepoint.get(name) != code:
            raise ChatError("Invalid emoji name.")
    else:
        raise ChatError("Invalid emoji type.")
