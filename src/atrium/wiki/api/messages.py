"""API messages: a MediaWiki message key, its typed parameters and its English text.

`errorformat=raw` shows the key and the typed parameters, the other formats the text, so every
error and warning is built here once, with both.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

DEPRECATION_NOTICE = (
    "Subscribe to the mediawiki-api-announce mailing list at "
    "<https://lists.wikimedia.org/postorius/lists/mediawiki-api-announce.lists.wikimedia.org/> "
    "for notice of API deprecations and breaking changes."
)


@dataclass(frozen=True)
class Message:
    key: str
    text: str
    params: tuple[Any, ...] = ()
    data: dict[str, Any] | None = field(default=None)

    def html(self) -> str:
        return html.escape(self.text, quote=False)


def plain(value: object) -> dict[str, str]:
    return {"plaintext": str(value)}


def num(value: int) -> dict[str, int]:
    return {"num": value}


def text_list(values: Sequence[str], kind: str = "text") -> dict[str, Any]:
    return {"list": [plain(v) for v in values], "type": kind}


def english_list(values: Sequence[str]) -> str:
    """MediaWiki's `listToText`: "a, b and c"."""
    if len(values) <= 1:
        return "".join(values)
    return ", ".join(values[:-1]) + " and " + values[-1]


def quoted_list(names: Sequence[str]) -> str:
    return english_list([f'"{n}"' for n in names])


def badvalue_enum(param: str, value: str, allowed: Sequence[str]) -> Message:
    return Message(
        "paramvalidator-badvalue-enumnotmulti",
        f'Unrecognized value for parameter "{param}": {value}.',
        (plain(param), plain(value), text_list(allowed), num(len(allowed))),
    )


def unrecognized_values(param: str, raw: str, values: Sequence[str]) -> Message:
    noun = "value" if len(values) == 1 else "values"
    return Message(
        "paramvalidator-unrecognizedvalues",
        f'Unrecognized {noun} for parameter "{param}": {", ".join(values)}',
        (plain(param), plain(raw), text_list(values, "comma"), num(len(values))),
        {"values": list(values)},
    )


def missingparam(param: str) -> Message:
    return Message(
        "paramvalidator-missingparam", f'The "{param}" parameter must be set.', (plain(param),)
    )


def badinteger(param: str, value: str) -> Message:
    return Message(
        "paramvalidator-badinteger",
        f'Invalid value "{value}" for integer parameter "{param}".',
        (plain(param), plain(value)),
    )


def badtimestamp(param: str, value: str) -> Message:
    return Message(
        "paramvalidator-badtimestamp",
        f'Invalid value "{value}" for timestamp parameter "{param}".',
        (plain(param), plain(value)),
    )


def baduser(param: str, value: str) -> Message:
    return Message(
        "paramvalidator-baduser",
        f'Invalid value "{value}" for user parameter "{param}".',
        (plain(param), plain(value)),
    )


def outofrange(
    param: str, value: str, low: int, curmax: int, max_: int | None, highmax: int | None
) -> Message:
    data: dict[str, Any] = {"min": low, "curmax": curmax}
    if max_ is not None:
        data["max"] = max_
    if highmax is not None:
        data["highmax"] = highmax
    return Message(
        "paramvalidator-outofrange-minmax",
        f'The value "{value}" for parameter "{param}" must be between {low} and {curmax:,}.',
        (plain(param), plain(value), num(low), num(curmax)),
        data,
    )


def toomanyvalues(param: str, limit: int) -> Message:
    return Message(
        "paramvalidator-toomanyvalues",
        f'Too many values supplied for parameter "{param}". The limit is {limit}.',
        (plain(param), num(limit)),
    )


def deprecated_param(param: str) -> Message:
    return Message(
        "paramvalidator-param-deprecated",
        f'The parameter "{param}" has been deprecated.',
        (plain(param),),
    )


def deprecated_value(param: str, value: str) -> Message:
    return Message(
        "paramvalidator-deprecated-value",
        f'The value "{value}" to parameter "{param}" has been deprecated.',
        (plain(param), plain(value)),
    )


def unrecognized_params(names: Sequence[str]) -> Message:
    noun = "parameter" if len(names) == 1 else "parameters"
    return Message(
        "apierror-unrecognizedparams",
        f"Unrecognized {noun}: {', '.join(names)}.",
        ({"list": {str(i): n for i, n in enumerate(names)}, "type": "comma"}, len(names)),
    )


def invalidparammix(names: Sequence[str]) -> Message:
    return Message(
        "apierror-invalidparammix",
        f"The parameters {quoted_list(names)} can not be used together.",
        (text_list(names), num(len(names))),
    )


def missing_one_of(names: Sequence[str]) -> Message:
    return Message(
        "apierror-missingparam-one-of",
        f"One of the parameters {quoted_list(names)} is required.",
        (text_list(names), num(len(names))),
    )


def missing_at_least_one_of(names: Sequence[str]) -> Message:
    return Message(
        "apierror-missingparam-at-least-one-of",
        f"At least one of the parameters {quoted_list(names)} is required.",
        (text_list(names), num(len(names))),
    )


def simple(key: str, text: str, *params: Any) -> Message:
    return Message(key, text, tuple(params))
