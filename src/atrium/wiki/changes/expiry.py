"""Expiry values of blocks, protections, group memberships and watchlist entries.

MediaWiki accepts `infinite`/`indefinite`/`infinity`/`never`, absolute timestamps and the relative
forms PHP's `strtotime` reads (`1 day`, `2 weeks`, `+3 months`); it stores `infinity` or a
14-digit timestamp.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from atrium.wiki.changes import ChangeError
from atrium.wiki.timestamps import parse_timestamp
from atrium.wiki.wikitext.escaping import escape_wikitext

INFINITY = "infinity"
_INFINITE = {"infinite", "indefinite", "infinity", "never"}
_RELATIVE = re.compile(
    r"^\+?\s*(\d+)\s*(second|sec|minute|min|hour|day|week|fortnight|month|year)s?$", re.I
)
_SECONDS = {
    "second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "day": 86400,
    "week": 7 * 86400, "fortnight": 14 * 86400,
}  # fmt: skip


def _ts(moment: datetime) -> str:
    return moment.strftime("%Y%m%d%H%M%S")


def _add_months(moment: datetime, months: int) -> datetime:
    month0 = moment.month - 1 + months
    year, month = moment.year + month0 // 12, month0 % 12 + 1
    # PHP overflows days past the month's end into the next month; so does this.
    first = moment.replace(year=year, month=month, day=1)
    return first + timedelta(days=moment.day - 1)


def parse_expiry(value: str, now: datetime | None = None) -> str | None:
    """`infinity`, a 14-digit timestamp, or None when the text is not an expiry."""
    text = value.strip()
    if text.lower() in _INFINITE:
        return INFINITY
    moment = now or datetime.now(UTC).replace(microsecond=0)
    match = _RELATIVE.match(text)
    if match:
        count, unit = int(match.group(1)), match.group(2).lower()
        if unit == "month":
            return _ts(_add_months(moment, count))
        if unit == "year":
            return _ts(_add_months(moment, 12 * count))
        return _ts(moment + timedelta(seconds=count * _SECONDS[unit]))
    return parse_timestamp(text)


def checked_expiry(value: str, now14: str, *, code: str = "invalidexpiry") -> str:
    """An expiry in the future, or MediaWiki's `invalidexpiry` / `pastexpiry` refusal."""
    expiry = parse_expiry(value)
    if expiry is None:
        raise ChangeError(
            code,
            f'Invalid expiry time "{value}".',
            "apierror-invalidexpiry",
            (escape_wikitext(value),),
        )
    if expiry != INFINITY and expiry < now14:
        raise ChangeError(
            "pastexpiry",
            f'The expiry time "{value}" is in the past.',
            "apierror-pastexpiry",
            (escape_wikitext(value),),
        )
    return expiry


def api_expiry(expiry: str | None, infinity: str = "infinite") -> str:
    """ApiResult::formatExpiry: ISO 8601, or the given word for no expiry."""
    if expiry is None or expiry == INFINITY:
        return infinity
    return (
        f"{expiry[0:4]}-{expiry[4:6]}-{expiry[6:8]}T{expiry[8:10]}:{expiry[10:12]}:{expiry[12:14]}Z"
    )


def is_active(expiry: str | None, now14: str) -> bool:
    return expiry is None or expiry == INFINITY or expiry > now14
