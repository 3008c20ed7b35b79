"""Zulip's request-parameter rules, declared once per endpoint.

Every parameter arrives as a string (query string or form body, for every method). Strings are
taken as they are; every other type is JSON-encoded inside the field (`num_before=5`,
`to=[1,2]`, `include_subscribers=true`) and validated with a cached pydantic adapter. Errors use
Zulip's wording: `Missing 'x' argument` (REQUEST_VARIABLE_MISSING), `x is not valid JSON`,
`x is not an integer`, `x[0] is not a string`, `Can't decide between 'a' and 'b' arguments`.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import unquote

import orjson
import pydantic

from atrium.chat.errors import ChatError, invalid_argument, missing_argument, no_such_user


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()

# pydantic error type -> the noun Zulip puts after "is not".
_TYPE_NOUNS = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "bool_type": "a boolean",
    "bool_parsing": "a boolean",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "a dict",
    "float_type": "a float",
    "model_type": "a dict",
}


def _location(name: str, loc: Iterable[int | str]) -> str:
    out = name
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in {"int", "str", "bool", "list[int]", "list[str]"} or "[" in part:
            # pydantic names union members in the location; Zulip does not.
            continue
        else:
            out += f"[{part!r}]"
    return out


def describe_validation_error(name: str, exc: pydantic.ValidationError) -> str:
    err = exc.errors()[0]
    where = _location(name, err["loc"])
    noun = _TYPE_NOUNS.get(err["type"])
    if noun:
        return f"{where} is not {noun}"
    if err["type"] == "literal_error":
        return f"Invalid {where}"
    if err["type"] == "missing":
        return f"{where} field is missing: {err['msg']}"
    if err["type"] == "extra_forbidden":
        return f"{where} is not allowed"
    return f"Invalid {where}"


# Ids, counts and settings are stored in INTEGER columns, 32-bit on PostgreSQL: a larger integer
# names nothing and fits nowhere, so it is refused before it reaches a database driver (which
# would raise, not answer). A parameter declared `wide` (a timestamp) may use 64 bits.
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
WIDE_MIN, WIDE_MAX = -(2**63), 2**63 - 1


def _out_of_range(value: Any, low: int, high: int) -> bool:
    """Whether a decoded JSON value holds an integer outside [low, high]."""
    if type(value) is int:
        return not low <= value <= high
    if isinstance(value, list):
        return any(_out_of_range(item, low, high) for item in value)
    if isinstance(value, dict):
        return any(_out_of_range(item, low, high) for item in value.values())
    return False


def _has_nul(value: Any) -> bool:
    """Whether a decoded JSON value holds a string with a NUL character."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(_has_nul(item) for item in value)
    if isinstance(value, dict):
        return any(_has_nul(key) or _has_nul(item) for key, item in value.items())
    return False


def nul_error(name: str) -> ChatError:
    """PostgreSQL cannot store NUL in text, and Zulip refuses it in every name and text."""
    return ChatError(f"'{name}' must not contain null bytes")


def digits_id(text: str) -> int | None:
    """The id that `text` spells in ASCII digits, or None when it spells none in range.

    `str.isdigit` also accepts superscripts and other scripts' digits, which `int` refuses
    or reads as another number; an id is ASCII digits only.
    """
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= INT_MAX else None


def invalid_message() -> ChatError:
    return ChatError("Invalid message(s)")


# Types whose JSON value of exactly that type passes strict validation unchanged.
_PLAIN_TYPES = (int, bool)


@dataclass(frozen=True)
class Param:
    """One request parameter.

    `type` is `str` for raw strings, anything else is JSON-decoded then validated.
    `converter`, when given, replaces both steps: it receives the raw string.
    A NUL character anywhere in the value is refused (unless `nul_checked`). An integer
    beyond 32 bits (64 if `wide`) anywhere in the value, or a path id beyond `INT_MAX`, is
    refused with
    `out_of_range()` when given (a message id is `Invalid message(s)`, as for any unknown
    id), else with `Bad value for '<name>': <value>`.
    """

    name: str
    type: Any = str
    default: Any = None
    aliases: tuple[str, ...] = ()
    converter: Callable[[str, str], Any] | None = None
    path: bool = False
    out_of_range: Callable[[], ChatError] | None = None
    wide: bool = False
    # The action refuses NUL itself, in Zulip's words for that field (message content, topic).
    nul_checked: bool = False

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @cached_property
    def adapter(self) -> pydantic.TypeAdapter[Any]:
        return pydantic.TypeAdapter(self.type)

    @property
    def bounds(self) -> tuple[int, int]:
        return (WIDE_MIN, WIDE_MAX) if self.wide else (INT_MIN, INT_MAX)

    def range_error(self, given_as: str, raw: Any) -> ChatError:
        if self.out_of_range is not None:
            return self.out_of_range()
        return invalid_argument(given_as, str(raw))

    def path_value(self, value: Any) -> Any:
        """A path segment as the route matched it (an int for `{x:int}`), converted by the
        converter when there is one, and checked for range."""
        if isinstance(value, str) and "\x00" in value:
            raise nul_error(self.name)
        if self.converter is not None and isinstance(value, str):
            value = self.converter(self.name, value)
        if isinstance(value, int) and not 0 <= value <= INT_MAX:
            raise self.range_error(self.name, value)
        return value

    def convert(self, raw: str, given_as: str) -> Any:
        if not self.nul_checked and "\x00" in raw:
            raise nul_error(given_as)
        if self.converter is not None:
            value = self.converter(given_as, raw)
            if _out_of_range(value, *self.bounds):
                raise self.range_error(given_as, raw)
            return value
        if self.type is str:
            return raw
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise ChatError(f"{given_as} is not valid JSON") from None
        if _out_of_range(value, *self.bounds):
            raise self.range_error(given_as, raw)
        if not self.nul_checked and "\\u0000" in raw and _has_nul(value):
            raise nul_error(given_as)
        if type(value) is self.type and self.type in _PLAIN_TYPES:
            return value  # what strict validation would return, without its cost
        try:
            return self.adapter.validate_python(value, strict=True)
        except pydantic.ValidationError as exc:
            raise ChatError(describe_validation_error(given_as, exc)) from None


@dataclass(frozen=True)
class Endpoint:
    """The declared parameters of one endpoint (for one HTTP method)."""

    params: tuple[Param, ...] = ()
    known: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        names = set()
        for p in self.params:
            names.add(p.name)
            names.update(p.aliases)
        object.__setattr__(self, "known", frozenset(names))

    def parse(
        self, values: Mapping[str, str], path_values: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        """Declared parameters by name, and the names of the parameters nobody asked for."""
        out: dict[str, Any] = {}
        for p in self.params:
            if p.path:
                out[p.name] = p.path_value(path_values[p.name])
                continue
            given = [n for n in (p.name, *p.aliases) if n in values]
            if len(given) > 1:
                raise ChatError(f"Can't decide between '{given[0]}' and '{given[1]}' arguments")
            if not given:
                if p.required:
                    raise missing_argument(p.name)
                out[p.name] = p.default
                continue
            out[p.name] = p.convert(values[given[0]], given[0])
        ignored = [name for name in values if name not in self.known]
        return out, ignored


def parse_form(body: bytes) -> list[tuple[str, str]]:
    """application/x-www-form-urlencoded, decoded as Django does (UTF-8, '+' as space)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ChatError("Malformed request body: not UTF-8") from None
    return parse_urlencoded(text)


def parse_urlencoded(text: str) -> list[tuple[str, str]]:
    """`urllib.parse.parse_qsl(text, keep_blank_values=True)`, faster on percent-escapes.

    A narrow or a JSON list arrives with dozens of escapes, which urllib decodes one by one in
    Python (about 10 us of a 100-message fetch); turned into `\\xHH` escapes they are decoded in
    C by `codecs.escape_decode`. Text that is not ASCII, or not well escaped (`100%`, `%zz`),
    goes to urllib, so the result is always urllib's.
    """
    pairs = []
    for pair in text.split("&"):
        if pair:
            name, _, value = pair.partition("=")
            pairs.append((_unquote_plus(name), _unquote_plus(value)))
    return pairs


def _unquote_plus(text: str) -> str:
    text = text.replace("+", " ")
    if "%" not in text:
        return text
    if text.isascii():
        escaped = text.replace("\\", "\\\\").replace("%", "\\x").encode("ascii")
        try:
            raw: bytes = codecs.escape_decode(escaped)[0]
        except ValueError:  # an invalid escape: urllib keeps it as it is
            pass
        else:
            return raw.decode("utf-8", "replace")
    return unquote(text, errors="replace")


def user_key(name: str, raw: str) -> int | str:
    """`/users/{user}`: an id in ASCII digits, or (where the route takes one) an email."""
    if raw.isascii() and raw.isdigit():
        return int(raw)
    return raw


# The path's user: an id beyond 32 bits names no user, as any other unknown id.
USER_PATH = Param("user", path=True, converter=user_key, out_of_range=no_such_user)
