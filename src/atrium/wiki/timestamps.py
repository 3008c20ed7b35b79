"""MediaWiki timestamps: stored as `YYYYMMDDHHMMSS` (UTC), shown as ISO 8601 `...Z`."""

from __future__ import annotations

import re
from datetime import UTC, datetime

_INTEGER = re.compile(r"^[+-]?\d+$")
_TS14 = re.compile(r"^\d{14}$")
_ISO = re.compile(r"^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:Z|[+-]00:?00)?$")
_ISO_DATE = re.compile(r"^(\d{4})-(\d\d)-(\d\d)$")


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


def parse_timestamp(value: str) -> str | None:
    """MediaWiki's accepted input forms -> `YYYYMMDDHHMMSS`; None when unparseable."""
    value = value.strip()
    if value == "now":
        return datetime.now(UTC).strftime("%Y%m%d%H%M%S")
    if _TS14.match(value):
        try:
            datetime.strptime(value, "%Y%m%d%H%M%S")
        except ValueError:
            return None
        return value
    match = _ISO.match(value)
    if match:
        y, mo, d, h, mi, s = (int(g) for g in match.groups())
        try:
            return datetime(y, mo, d, h, mi, s).strftime("%Y%m%d%H%M%S")
        except ValueError:
            return None
    match = _ISO_DATE.match(value)
    if match:
        try:
            y, mo, d = (int(g) for g in match.groups())
            return datetime(y, mo, d).strftime("%Y%m%d%H%M%S")
        except ValueError:
            return None
    if _INTEGER.match(value):
        try:
            return datetime.fromtimestamp(int(value), UTC).strftime("%Y%m%d%H%M%S")
        except (OverflowError, ValueError, OSError):
            return None
    return None
