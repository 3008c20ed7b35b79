"""What a page's reader may see of a row with deletion bits (`rev_deleted`, `rc_deleted`,
`log_deleted`): the API's rule (`reads.visibility`) for the signed-in account. A hidden user name or summary is shown as
MediaWiki's "(username removed)" / "(edit summary removed)"; a hidename block sets these bits on
every row of the user, so a hidden user stays hidden on every page."""

from __future__ import annotations

from atrium.wiki.reads.users import Account
from atrium.wiki.reads.visibility import (
    DELETED_COMMENT,
    DELETED_RESTRICTED,
    DELETED_TEXT,
    DELETED_USER,
    user_can_bitfield,
)

__all__ = [
    "DELETED_COMMENT",
    "DELETED_RESTRICTED",
    "DELETED_TEXT",
    "DELETED_USER",
    "can_see",
    "shown_comment",
    "shown_user",
]


def can_see(reader: Account, deleted: int, bit: int) -> bool:
    return user_can_bitfield(deleted, bit, reader.rights) if deleted & bit else True


def shown_user(reader: Account, deleted: int, name: str) -> str | None:
    """The user name, or None where it must read "(username removed)"."""
    return name if can_see(reader, deleted, DELETED_USER) else None


def shown_comment(reader: Account, deleted: int, text: str) -> str | None:
    return text if can_see(reader, deleted, DELETED_COMMENT) else None
