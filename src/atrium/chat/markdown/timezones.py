"""UTC offsets (seconds) of time-zone abbreviations people type in `<time:...>`.

Abbreviations are ambiguous; like Zulip, each maps to its most common meaning.
"""

from __future__ import annotations

_HOUR = 3600

COMMON_TIMEZONES: dict[str, int] = {
    "UTC": 0, "GMT": 0, "Z": 0, "WET": 0, "WEST": _HOUR,
    "BST": _HOUR, "IST": 5 * _HOUR + 1800, "CET": _HOUR, "CEST": 2 * _HOUR,
    "MET": _HOUR, "MEST": 2 * _HOUR, "EET": 2 * _HOUR, "EEST": 3 * _HOUR,
    "MSK": 3 * _HOUR, "PKT": 5 * _HOUR, "NPT": 5 * _HOUR + 2700, "BDT": 6 * _HOUR,
    "ICT": 7 * _HOUR, "WIB": 7 * _HOUR, "HKT": 8 * _HOUR, "SGT": 8 * _HOUR,
    "AWST": 8 * _HOUR, "PHT": 8 * _HOUR, "JST": 9 * _HOUR, "KST": 9 * _HOUR,
    "ACST": 9 * _HOUR + 1800, "ACDT": 10 * _HOUR + 1800, "AEST": 10 * _HOUR,
    "AEDT": 11 * _HOUR, "NZST": 12 * _HOUR, "NZDT": 13 * _HOUR,
    "AST": -4 * _HOUR, "ADT": -3 * _HOUR, "NST": -3 * _HOUR - 1800, "NDT": -2 * _HOUR - 1800,
    "EST": -5 * _HOUR, "EDT": -4 * _HOUR, "CST": -6 * _HOUR, "CDT": -5 * _HOUR,
    "MST": -7 * _HOUR, "MDT": -6 * _HOUR, "PST": -8 * _HOUR, "PDT": -7 * _HOUR,
    "AKST": -9 * _HOUR, "AKDT": -8 * _HOUR, "HST": -10 * _HOUR, "BRT": -3 * _HOUR,
    "ART": -3 * _HOUR, "SAST": 2 * _HOUR, "WAT": _HOUR, "CAT": 2 * _HOUR, "EAT": 3 * _HOUR,
}  # fmt: skip
