"""The wiki user name a member gets: derived once from the full name, as a MediaWiki title
normalises it, and made unique with a numeric suffix ("Maya Lin", "Maya Lin 2", ...)."""

from __future__ import annotations

import re

from atrium.wiki.accounts.usernames import MAX_CREATABLE_BYTES, is_creatable, normalize_username

# What MediaWiki refuses in a user name (title-illegal characters, `$wgInvalidUsernameCharacters`).
_UNUSABLE = re.compile(r"[@:>#<\[\]|{}/\x00-\x1f\x7f]+")
_FALLBACK = "Member"
# How many candidate names are checked against the stores at a time.
NAME_BATCH = 20


def base_name(full_name: str) -> str:
    """The full name as a user name: unusable characters dropped, spaces collapsed, first
    letter upper-cased; "Member" when nothing usable remains."""
    cleaned = _UNUSABLE.sub(" ", full_name)
    name = normalize_username(cleaned) or _FALLBACK
    while len(name.encode()) > MAX_CREATABLE_BYTES - 8:
        name = name[:-1].rstrip()
    if not is_creatable(name):
        name = f"{name} (member)" if is_creatable(f"{name} (member)") else _FALLBACK
    return name


def candidates(full_name: str, start: int, count: int) -> list[str]:
    """The names to try, the `start`-th first: the base name, then it with " 2", " 3", ..."""
    base = base_name(full_name)
    return [base if i == 1 else f"{base} {i}" for i in range(start, start + count)]
