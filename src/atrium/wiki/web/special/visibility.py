"""What a reader may see of a row with deletion bits (`rev_deleted`, `rc_deleted`, `log_deleted`):
RevisionRecord::userCanBitfield, as the API applies it. A hidden user name or summary is shown as
MediaWiki's "(username removed)" / "(edit summary removed)"; a hidename block sets these bits on
every row of the user, so a hidden user stays hidden on every page."""

from __future__ import annotations

from atrium.wiki.reads.users import Account

DELETED_TEXT = 1
DELETED_COMMENT = 2
DELETED_USER = 4
DELETED_RESTRICTED = 8


def can_see(reader: Account, deleted: int, bit: int) -> bool:
    if not deleted & bit:
        return True
    if deleted & DELETED_RESTRICTED:
        return reader.allowed("viewsuppressed")
    return reader.allowed("deletedtext" if bit == DELETED_TEXT else "deletedhistory")


def shown_user(reader: Account, deleted: int, name: str) -> str | None:
    """The user name, or None where it must read "(username removed)"."""
    return name if can_see(reader, deleted, DELETED_USER) else None


def shown_comment(reader: Account, deleted: int, text: str) -> str | None:
    return text if can_see(reader, deleted, DELETED_COMMENT) else None
