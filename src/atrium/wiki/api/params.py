"""Typed parameter declarations: the one source of validation, warnings and `action=paraminfo`.

A module declares its parameters once, as `Param` records inside a `ModuleSpec`. `ParamReader`
validates a request against them the way MediaWiki's ParamValidator does (prefixes, multi-values on
`|` or U+001F, enums, limits with `max`, integer ranges, timestamps, users, namespaces, deprecations)
and `param_info` renders the same records for `action=paraminfo`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from atrium.wiki.accounts.usernames import is_ip, normalize_username
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.messages import messages as msg
from atrium.wiki.messages.messages import Message
from atrium.wiki.timestamps import parse_timestamp

STRING = "string"
TEXT = "text"
INTEGER = "integer"
LIMIT = "limit"
BOOLEAN = "boolean"
TIMESTAMP = "timestamp"
NAMESPACE = "namespace"
USER = "user"
TITLE = "title"
PASSWORD = "password"
EXPIRY = "expiry"
TAGS = "tags"
RAW = "raw"

LIMIT_MAX = 500
LIMIT_HIGHMAX = 5000
MULTI_LIMIT = 50
MULTI_HIGHLIMIT = 500
# PHP's integer range: MediaWiki refuses any integer parameter outside it as `badinteger`, so no
# value a request names can overflow a 64-bit database column.
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class Param:
    """One parameter of one module, with every attribute `action=paraminfo` reports."""

    name: str
    type: str | tuple[str, ...] = STRING
    default: str | int | None = None
    multi: bool = False
    required: bool = False
    deprecated: bool = False
    sensitive: bool = False
    info: tuple[tuple[str, tuple[int, ...] | None], ...] = ()
    subtypes: tuple[str, ...] = ()
    allspecifier: str | None = None
    extranamespaces: tuple[int, ...] = ()
    deprecatedvalues: tuple[str, ...] = ()
    allowsduplicates: bool = False
    min: int | None = None
    max: int | None = None
    highmax: int | None = None
    tokentype: str | None = None
    # For module-selecting parameters (action, format, list, prop, meta, generator): the modules.
    submodules: Mapping[str, str] | None = None
    submoduleparamprefix: str | None = None
    internalvalues: tuple[str, ...] = ()
    # The values are what help and paraminfo show; the module checks a request's value itself
    # (MediaWiki's ApiQueryLogEvents `leaction`, typed only for help, with its own error code).
    checked_by_module: bool = False

    @property
    def is_enum(self) -> bool:
        return isinstance(self.type, tuple)

    @property
    def enum_values(self) -> tuple[str, ...]:
        return self.type if isinstance(self.type, tuple) else ()


def enum(*values: str) -> tuple[str, ...]:
    return tuple(values)


def limit(name: str = "limit", default: int | None = 10, **extra: Any) -> Param:
    return Param(name, LIMIT, default=default, min=1, max=LIMIT_MAX, highmax=LIMIT_HIGHMAX, **extra)


@dataclass(frozen=True)
class ModuleSpec:
    """A module of the API: where it sits, its markers and its parameters."""

    name: str
    classname: str
    group: str | None  # "action", "format", "list", "meta", "prop"; None for main
    prefix: str
    params: tuple[Param, ...]
    readrights: bool = True
    writerights: bool = False
    mustbeposted: bool = False
    generator: bool = False
    deprecated: bool = False
    helpurls: tuple[str, ...] = ()
    path_override: str | None = None

    @property
    def path(self) -> str:
        if self.path_override is not None:
            return self.path_override
        if self.group in {"list", "meta", "prop"}:
            return f"query+{self.name}"
        return self.name

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def with_params(self, params: Iterable[Param]) -> ModuleSpec:
        return replace(self, params=tuple(params))


# --- values ---------------------------------------------------------------------------------


def split_multi(value: str) -> list[str]:
    if value == "":
        return []
    if value.startswith("\x1f"):
        return value[1:].split("\x1f")
    return value.split("|")


_INTEGER = re.compile(r"^[+-]?\d+$")
_CIDR = re.compile(r"^(.+)/(\d{1,3})$")


def parse_int64(value: str) -> int | None:
    """A decimal integer that PHP's `intval` represents exactly (IntegerDef), else None.

    At the range's ends an explicit `+` is refused too: MediaWiki detects saturation by comparing
    the digits without sign or leading zeros, and `+` is not stripped."""
    if not _INTEGER.match(value):
        return None
    number = int(value)
    if number < INT64_MIN or number > INT64_MAX:
        return None
    if number in (INT64_MIN, INT64_MAX) and value.startswith("+"):
        return None
    return number


_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _clean_controls(value: str) -> str:
    """UtfNormal's cleanUp as ApiParamValidatorCallbacks applies it: C0 control characters other
    than tab, newline and carriage return become U+FFFD, except the U+001F that separate a
    multi-value given with a leading U+001F. (PostgreSQL's text refuses NUL outright.)"""
    if not _CONTROLS.search(value):
        return value
    if value.startswith("\x1f"):
        return "\x1f".join(_CONTROLS.sub("\ufffd", part) for part in value.split("\x1f"))
    return _CONTROLS.sub("\ufffd", value)


def _user_value(value: str, subtypes: tuple[str, ...]) -> str | None:
    if "id" in subtypes and re.match(r"^#\d+$", value):
        # UserDef reads the id with PHP's (int), which saturates: beyond it is nobody.
        return value if parse_int64(value[1:]) is not None else f"#{INT64_MAX}"
    if "interwiki" in subtypes and ">" in value:
        prefix, _, rest = value.partition(">")
        norm = normalize_username(rest)
        return f"{prefix}>{norm}" if prefix and norm else None
    if "ip" in subtypes and is_ip(value):
        return value.upper() if ":" in value else value
    if "cidr" in subtypes:
        match = _CIDR.match(value)
        if match and is_ip(match.group(1)):
            return value
    if "name" in subtypes:
        return normalize_username(value)
    return None


# --- reading a request ----------------------------------------------------------------------


@dataclass
class WarningEntry:
    module_path: str
    module_name: str
    code: str
    message: Message


@dataclass
class ParamReader:
    """Validates one request's raw parameters against module declarations."""

    raw: Mapping[str, str]
    high_limits: bool
    namespaces: frozenset[int]
    warnings: list[WarningEntry] = field(default_factory=list)
    used: set[str] = field(default_factory=set)
    limits_used: dict[str, int] = field(default_factory=dict)
    deprecation_noted: bool = False

    def warn(self, module: ModuleSpec | str, code: str, message: Message) -> None:
        if isinstance(module, ModuleSpec):
            path, name = module.path, module.name
        else:
            path, name = module, module.rsplit("+", 1)[-1]
        self.warnings.append(WarningEntry(path, name, code, message))

    def note_deprecation(self) -> None:
        if not self.deprecation_noted:
            self.deprecation_noted = True
            self.warn(
                "main",
                "deprecation-help",
                msg.deprecation_notice(),
            )

    def has(self, key: str) -> bool:
        return key in self.raw

    def get_raw(self, key: str) -> str | None:
        value = self.raw.get(key)
        if value is not None:
            self.used.add(key)
        return value

    def read(self, module: ModuleSpec, extra_prefix: str = "") -> dict[str, Any]:
        """Every parameter of the module, then the first refusal (ApiBase::extractRequestParams
        reads them all, so later parameters still warn)."""
        values: dict[str, Any] = {}
        refused: ApiUsageError | None = None
        for p in module.params:
            try:
                values[p.name] = self.value(module, p, extra_prefix)
            except ApiUsageError as exc:
                refused = refused or exc
        if refused is not None:
            raise refused
        return values

    def value(self, module: ModuleSpec, p: Param, extra_prefix: str = "") -> Any:
        key = extra_prefix + module.prefix + p.name
        raw = self.get_raw(key)
        if raw is None:
            if p.required:
                raise ApiUsageError("missingparam", msg.missingparam(key), module=module.path)
            if p.type == BOOLEAN:
                return False
            if p.default is None:
                return [] if p.multi else None
            raw = str(p.default)
            return self._convert(module, p, key, raw, is_default=True)
        raw = unicodedata.normalize("NFC", raw)
        cleaned = _clean_controls(raw)
        if cleaned != raw:
            self.warn(module, "badutf8", msg.api("apiwarn-badutf8", key))
            raw = cleaned
        if p.deprecated:
            self.warn(module, "deprecation", msg.deprecated_param(key))
            self.note_deprecation()
        if p.type == BOOLEAN:
            return True
        return self._convert(module, p, key, raw, is_default=False)

    def _convert(
        self, module: ModuleSpec, p: Param, key: str, raw: str, *, is_default: bool
    ) -> Any:
        if not p.multi:
            return self._single(module, p, key, raw, raw)
        values = split_multi(raw)
        cap = MULTI_HIGHLIMIT if self.high_limits else MULTI_LIMIT
        if len(values) > cap and not is_default:
            raise ApiUsageError(
                "toomanyvalues",
                msg.toomanyvalues(key, cap),
                module=module.path,
                extra={"limit": cap, "lowlimit": MULTI_LIMIT, "highlimit": MULTI_HIGHLIMIT},
            )
        if not p.allowsduplicates:
            values = list(dict.fromkeys(values))
        if p.allspecifier is not None and p.allspecifier in values and len(values) == 1:
            return self._all_values(p)
        if p.is_enum or p.type == NAMESPACE:
            allowed = set(self._allowed(p))
            good = [v for v in values if v in allowed]
            bad = [v for v in values if v not in allowed]
            if bad and not is_default:
                self.warn(module, "unrecognizedvalues", msg.unrecognized_values(key, raw, bad))
            for v in good:
                if v in p.deprecatedvalues and not is_default:
                    self.warn(module, "deprecation", msg.deprecated_value(key, v))
                    self.note_deprecation()
            if p.type == NAMESPACE:
                return [int(v) for v in good]
            return good
        return [self._single(module, p, key, v, raw) for v in values]

    def _allowed(self, p: Param) -> list[str]:
        if p.type == NAMESPACE:
            return [str(n) for n in sorted(self.namespaces | set(p.extranamespaces))]
        return list(p.enum_values)

    def _all_values(self, p: Param) -> list[Any]:
        if p.type == NAMESPACE:
            return sorted(n for n in self.namespaces if n >= 0) + list(p.extranamespaces)
        return list(p.enum_values)

    def _single(self, module: ModuleSpec, p: Param, key: str, value: str, raw: str) -> Any:
        kind = p.type
        if isinstance(kind, tuple):
            if value not in kind and not p.checked_by_module:
                raise ApiUsageError(
                    "badvalue", msg.badvalue_enum(key, value, list(kind)), module=module.path
                )
            if value in p.deprecatedvalues:
                self.warn(module, "deprecation", msg.deprecated_value(key, value))
                self.note_deprecation()
            return value
        if kind == NAMESPACE:
            allowed = self._allowed(p)
            if value not in allowed:
                raise ApiUsageError(
                    "badvalue", msg.badvalue_enum(key, value, allowed), module=module.path
                )
            return int(value)
        if kind == LIMIT:
            return self._limit(module, p, key, value)
        if kind == INTEGER:
            parsed = parse_int64(value)
            if parsed is None:
                raise ApiUsageError("badinteger", msg.badinteger(key, value), module=module.path)
            number = parsed
            low = p.min
            high = p.max
            if p.highmax is not None and self.high_limits:
                high = p.highmax
            if (low is not None and number < low) or (high is not None and number > high):
                clamped = max(low, number) if low is not None else number
                clamped = min(high, clamped) if high is not None else clamped
                self.warn(
                    module,
                    "outofrange",
                    msg.outofrange(
                        key, value, low if low is not None else 0, high or 0, p.max, p.highmax
                    ),
                )
                return clamped
            return number
        if kind == TIMESTAMP:
            ts = parse_timestamp(value)
            if ts is None:
                raise ApiUsageError(
                    "badtimestamp", msg.badtimestamp(key, value), module=module.path
                )
            return ts
        if kind == USER:
            user = _user_value(value, p.subtypes or ("name", "ip"))
            if user is None:
                raise ApiUsageError("baduser", msg.baduser(key, value), module=module.path)
            return user
        return value

    def _limit(self, module: ModuleSpec, p: Param, key: str, value: str) -> int:
        low = p.min if p.min is not None else 1
        ceiling = p.max if p.max is not None else LIMIT_MAX
        if self.high_limits and p.highmax is not None:
            ceiling = p.highmax
        if value == "max":
            self.limits_used[module.name] = ceiling
            return ceiling
        parsed = parse_int64(value)
        if parsed is None:
            raise ApiUsageError("badinteger", msg.badinteger(key, value), module=module.path)
        number = parsed
        if number < low or number > ceiling:
            self.warn(
                module,
                "outofrange",
                msg.outofrange(key, value, low, ceiling, p.max, p.highmax),
            )
            return min(max(number, low), ceiling)
        return number


# --- paraminfo ------------------------------------------------------------------------------


def _flag(out: dict[str, Any], key: str, value: bool, fv: int, *, always: bool = False) -> None:
    if fv >= 2:
        if value or always:
            out[key] = value
    elif value:
        out[key] = ""


def enum_for_paraminfo(p: Param) -> list[str]:
    regular = sorted(v for v in p.enum_values if v not in p.deprecatedvalues)
    return regular + sorted(v for v in p.enum_values if v in p.deprecatedvalues)


def param_info(p: Param, index: int, fv: int, high_limits: bool) -> dict[str, Any]:
    """One parameter record of `action=paraminfo`, as MediaWiki 1.39 renders it."""
    out: dict[str, Any] = {"index": index, "name": p.name}
    out["type"] = enum_for_paraminfo(p) if p.is_enum else p.type
    _flag(out, "required", p.required, fv, always=True)
    if p.sensitive:
        _flag(out, "sensitive", True, fv)
    if p.tokentype is not None:
        out["tokentype"] = p.tokentype
    if p.deprecated:
        _flag(out, "deprecated", True, fv)
    if p.default is not None:
        out["default"] = p.default
    _flag(out, "multi", p.multi, fv, always=True)
    if p.multi:
        out["lowlimit"] = MULTI_LIMIT
        out["highlimit"] = MULTI_HIGHLIMIT
        out["limit"] = MULTI_HIGHLIMIT if high_limits else MULTI_LIMIT
        if p.allowsduplicates:
            _flag(out, "allowsduplicates", True, fv)
    if p.allspecifier is not None:
        out["allspecifier"] = p.allspecifier
    if p.deprecatedvalues:
        out["deprecatedvalues"] = list(p.deprecatedvalues)
    if p.extranamespaces:
        out["extranamespaces"] = list(p.extranamespaces)
    if p.subtypes:
        out["subtypes"] = list(p.subtypes)
    if p.type in (LIMIT, INTEGER):
        if p.min is not None:
            out["min"] = p.min
        if p.max is not None:
            out["max"] = p.max
        if p.highmax is not None:
            out["highmax"] = p.highmax
    if p.submodules is not None:
        out["submodules"] = dict(p.submodules)
    if p.submoduleparamprefix is not None:
        out["submoduleparamprefix"] = p.submoduleparamprefix
    if p.internalvalues:
        out["internalvalues"] = list(p.internalvalues)
    if p.info:
        out["info"] = [
            {"name": name} if values is None else {"name": name, "values": list(values)}
            for name, values in p.info
        ]
    return out


def module_info(spec: ModuleSpec, fv: int, high_limits: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": spec.name,
        "classname": spec.classname,
        "path": spec.path,
    }
    if spec.group is not None:
        out["group"] = spec.group
    out["prefix"] = spec.prefix
    out["licensetag"] = "GPL-2.0-or-later"
    for marker, value in (
        ("readrights", spec.readrights),
        ("writerights", spec.writerights),
        ("mustbeposted", spec.mustbeposted),
        ("generator", spec.generator),
        ("deprecated", spec.deprecated),
    ):
        if value:
            _flag(out, marker, True, fv)
    out["parameters"] = [param_info(p, i, fv, high_limits) for i, p in enumerate(spec.params, 1)]
    out["templatedparameters"] = []
    return out
