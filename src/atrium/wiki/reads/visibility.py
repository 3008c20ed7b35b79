"""Who may see a hidden part of a revision, log entry or change: the bits of `rev_deleted`,
`log_deleted`, `rc_deleted` and `ar_deleted` (RevisionRecord::DELETED_*, LogPage::DELETED_*)
and RevisionRecord::userCanBitfield."""

from __future__ import annotations

from collections.abc import Iterable

DELETED_TEXT = 1  # DELETED_ACTION for a log entry
DELETED_COMMENT = 2
DELETED_USER = 4
DELETED_RESTRICTED = 8


def user_can_bitfield(bits: int, field_bit: int, rights: Iterable[str]) -> bool:
    """Whether someone with `rights` sees the field: `deletedtext` for hidden text,
    `deletedhistory` for a hidden summary or author, and `suppressrevision` or `viewsuppressed`
    for anything suppressed."""
    if not bits & field_bit:
        return True
    held = set(rights)
    if bits & DELETED_RESTRICTED:
        return bool(held & {"suppressrevision", "viewsuppressed"})
    return ("deletedtext" if field_bit & DELETED_TEXT else "deletedhistory") in held
