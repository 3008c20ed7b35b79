"""Which user names can be created (MediaWiki 1.39's UserNameUtils::isCreatable).

A name can be valid (it may exist, e.g. imported, and `list=users` shows it as missing) and still
not be creatable: it contains one of `$wgInvalidUsernameCharacters` (`@:>`), is longer than 235
bytes, or is one of `$wgReservedUsernames` (the `msg:` entries in English, the content language).
"""

from __future__ import annotations

INVALID_USERNAME_CHARACTERS = "@:>"
MAX_CREATABLE_BYTES = 235

RESERVED_USERNAMES = frozenset(
    {
        "MediaWiki default",
        "Conversion script",
        "Maintenance script",
        "Template namespace initialisation script",
        "ScriptImporter",
        "Delete page script",
        "Move page script",
        "Command line script",
        "Unknown user",
        "Redirect fixer",  # msg:double-redirect-fixer
        "System messenger",  # msg:usermessage-editor
        "Proxy blocker",  # msg:proxyblocker
        "DNSBL",  # msg:sorbs
        "MediaWiki spam cleanup",  # msg:spambot_username
        "MediaWiki automatic change",  # msg:autochange-username
    }
)


def is_creatable(name: str) -> bool:
    """Whether an account may be made with this (valid, normalised) name."""
    if len(name.encode()) > MAX_CREATABLE_BYTES:
        return False
    if any(c in name for c in INVALID_USERNAME_CHARACTERS):
        return False
    return name not in RESERVED_USERNAMES
