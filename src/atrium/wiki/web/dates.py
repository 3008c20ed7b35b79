"""Times as the reader asked to see them: the `date` preference (MediaWiki's default, mdy, dmy,
ymd or ISO 8601) in the `timecorrection` time zone (`ZoneInfo|<minutes>|<zone>`,
`Offset|<minutes>`, or the wiki's UTC). The viewer's style is set once per request
(`current_viewer`) and every page's times go through `local_time`."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from atrium.wiki.timestamps import MONTHS

DATE_FORMATS = {
    "default": "No preference",
    "mdy": "16:12, January 15, 2001",
    "dmy": "16:12, 15 January 2001",
    "ymd": "16:12, 2001 January 15",
    "ISO 8601": "2001-01-15T16:12:34",
}


@dataclass(frozen=True)
class DateStyle:
    date: str = "default"
    correction: str = "System|0"

    def zone(self) -> tzinfo:
        parts = self.correction.split("|")
        if parts[0] == "ZoneInfo" and len(parts) == 3:
            try:
                return ZoneInfo(parts[2])
            except (ZoneInfoNotFoundError, ValueError):
                pass
        if parts[0] in ("ZoneInfo", "Offset") and len(parts) >= 2:
            minutes = parts[1].lstrip("-")
            if minutes.isdigit() and int(minutes) <= 14 * 60:
                return timezone(timedelta(minutes=int(parts[1])))
        return UTC

    def format(self, ts14: str) -> str:
        if len(ts14) != 14 or not ts14.isdigit():
            return ts14
        try:
            moment = datetime.strptime(ts14, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
        except ValueError:
            return ts14
        local = moment.astimezone(self.zone())
        time = f"{local.hour:02d}:{local.minute:02d}"
        month = MONTHS[local.month - 1]
        if self.date == "ISO 8601":
            return local.strftime("%Y-%m-%dT%H:%M:%S")
        if self.date == "mdy":
            return f"{time}, {month} {local.day}, {local.year}"
        if self.date == "ymd":
            return f"{time}, {local.year} {month} {local.day}"
        return f"{time}, {local.day} {month} {local.year}"


_STYLE: ContextVar[DateStyle | None] = ContextVar("wiki_reader_dates", default=None)
DEFAULT_STYLE = DateStyle()


def style_of(options: Mapping[str, object]) -> DateStyle:
    date = str(options.get("date") or "default")
    return DateStyle(
        date if date in DATE_FORMATS else "default",
        str(options.get("timecorrection") or "System|0"),
    )


def use(style: DateStyle) -> None:
    """Show this request's times in `style` (the context is the request's task)."""
    _STYLE.set(style)


def local_time(ts14: str) -> str:
    """A 14-digit timestamp as the reader of this request reads times."""
    return (_STYLE.get() or DEFAULT_STYLE).format(ts14)
