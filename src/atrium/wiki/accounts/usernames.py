"""User names: which are valid, which can be created (MediaWiki 1.39's UserNameUtils), and which
are IP addresses rather than names.

A name can be valid (it may exist, e.g. imported, and `list=users` shows it as missing) and still
not be creatable: it contains one of `$wgInvalidUsernameCharacters` (`@:>`), is longer than 235
bytes, or is one of `$wgReservedUsernames` (the `msg:` entries in English, the content language).
"""

from __future__ import annotations

import ipaddress
import re

_IPV4 = re.compile(r"^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$")
_IPV6 = re.compile(r"^[0-9A-Fa-f:]+(?::(?:\d{1,3}\.){3}\d{1,3})?$")
_BAD_USERNAME = re.compile(r"[@:>#<\[\]|{}\x00-\x1f\x7f/]")

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


def is_ip(value: str) -> bool:
    """An IPv4 or IPv6 address as MediaWiki's IPUtils::isIPAddress reads one (leading zeros allowed)."""
    if _IPV4.match(value):
        return True
    return ":" in value and bool(_IPV6.match(value)) and value.count("::") <= 1


def normalize_username(value: str) -> str | None:
    """A user name as stored (spaces, first letter upper-cased) or None when it cannot exist."""
    name = re.sub(r"[ _]+", " ", value).strip()
    if not name or _BAD_USERNAME.search(name) or len(name.encode()) > 255:
        return None
    return name[0].upper() + name[1:]


def is_ip_or_range(target: str) -> bool:
    """A block target that is an address or a CIDR range rather than a user name."""
    try:
        ipaddress.ip_network(target, strict=False)
    except ValueError:
        return False
    return True
