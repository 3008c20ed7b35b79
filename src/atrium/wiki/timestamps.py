"""MediaWiki timestamps: stored as `YYYYMMDDHHMMSS` (UTC), shown as ISO 8601 `...Z`."""

from __future__ import annotations

from datetime import UTC, datetime


def now14() -> str:
    return datetime.now(UTC).strftime("%Y%m%d%H%M%S")


def iso(ts14: str) -> str:
    return f"{ts14[0:4]}-{ts14[4:6]}-{ts14[6:8]}T{ts14[8:10]}:{ts14[10:12]}:{ts14[12:14]}Z"


MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def formatted(ts14: str) -> str:
    """A timestamp as the user interface shows it (the content language's date format, UTC):
    `05:15, 21 November 2026`."""
    return f"{ts14[8:10]}:{ts14[10:12]}, {int(ts14[6:8])} {MONTHS[int(ts14[4:6]) - 1]} {ts14[0:4]}"


def from_iso(value: str) -> str:
    """`2001-01-15T14:56:00Z` -> `20010115145600`."""
    digits = "".join(ch for ch in value if ch.isdigit())
    return digits[:14].ljust(14, "0")
