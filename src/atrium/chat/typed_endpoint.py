"""Typed chat views: an endpoint's parameters declared by the view's own signature.

As Zulip's `typed_endpoint`, the decorator reads the annotated keyword-only parameters of
`async def view(req: ApiRequest, *, ...)` and builds the `Endpoint` that parses them, so that the
view receives typed keyword arguments mypy can check instead of an untyped dict:

    @typed_endpoint
    async def update(
        req: ApiRequest,
        *,
        message_id: PathOnly[int],
        topic: Annotated[str | None, ApiParamConfig(aliases=("subject",))] = None,
        stream_id: Json[int] | None = None,
    ) -> dict[str, Any]: ...

A `str` parameter is taken raw; `Json[T]` is JSON-decoded then validated as `T`; `PathOnly[T]`
comes from the URL path. An outer `| None` with the default `None` only says the parameter is
optional (JSON `null` is refused unless it is inside `Json[...]`). A parameter without a default
is required. Parsing itself, and so every error's wording, stays in `params.Param`.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar, overload

from atrium.chat.errors import ChatError, no_such_user
from atrium.chat.http import ApiRequest, Guard, Precheck, ViewSpec
from atrium.chat.params import REQUIRED, Endpoint, Param, user_key

T = TypeVar("T")


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_JSON = _Marker("Json")
_PATH = _Marker("PathOnly")

# A parameter JSON-encoded in its field (`to=[1,2]`, `num_before=5`, `apply_markdown=false`).
Json = Annotated[T, _JSON]
# A segment of the URL path, as the route matched it.
PathOnly = Annotated[T, _PATH]


@dataclass(frozen=True)
class ApiParamConfig:
    """What a parameter's annotation cannot say: its name on the wire and `Param`'s options."""

    whence: str | None = None
    aliases: tuple[str, ...] = ()
    converter: Callable[[str, str], Any] | None = None
    out_of_range: Callable[[], ChatError] | None = None
    wide: bool = False
    nul_checked: bool = False


# The path's user: an id in ASCII digits or (where the route takes one) an email; an id beyond
# 32 bits names no user, as any other unknown id.
UserPath = Annotated[
    PathOnly[int | str], ApiParamConfig(converter=user_key, out_of_range=no_such_user)
]

TypedView = Callable[..., Awaitable[dict[str, Any]]]


def _split_annotated(annotation: Any) -> tuple[Any, list[Any]]:
    """The type inside any `Annotated[...]` layers, and their metadata (Python flattens nesting)."""
    if typing.get_origin(annotation) is Annotated:
        return annotation.__origin__, list(annotation.__metadata__)
    return annotation, []


def _without_none(annotation: Any) -> Any:
    """`X | None` as `X`; anything else unchanged."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(members) == 1:
            return members[0]
        if len(members) < len(typing.get_args(annotation)):
            return functools.reduce(lambda a, b: a | b, members)
    return annotation


def _param(view: str, name: str, annotation: Any, default: Any) -> Param:
    outer, metadata = _split_annotated(annotation)
    if default is None and _JSON not in metadata:  # `Json[X | None]` keeps its None
        outer = _without_none(outer)
    inner, more = _split_annotated(outer)
    metadata += more
    configs = [m for m in metadata if isinstance(m, ApiParamConfig)]
    config = configs[0] if configs else ApiParamConfig()
    path = _PATH in metadata
    if _JSON in metadata or path:
        param_type = inner
    elif inner is str or config.converter is not None:
        param_type = str
    else:
        raise TypeError(f"{view}: parameter {name!r} must be str, Json[...] or PathOnly[...]")
    return Param(
        config.whence or name,
        param_type,
        REQUIRED if default is inspect.Parameter.empty else default,
        aliases=config.aliases,
        converter=config.converter,
        path=path,
        out_of_range=config.out_of_range,
        wide=config.wide,
        nul_checked=config.nul_checked,
    )


def _spec(
    fn: TypedView,
    auth: bool,
    rate_limited: bool,
    precheck: Precheck | None,
    guard: Guard | None,
    max_body_bytes: int | None,
) -> ViewSpec:
    hints = typing.get_type_hints(fn, include_extras=True)
    params: list[Param] = []
    names: list[tuple[str, str]] = []  # (Python name, wire name)
    for parameter in list(inspect.signature(fn).parameters.values())[1:]:
        if parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"{fn.__name__}: request parameters must be keyword-only")
        param = _param(fn.__name__, parameter.name, hints[parameter.name], parameter.default)
        params.append(param)
        names.append((parameter.name, param.name))

    @functools.wraps(fn)
    async def view(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
        return await fn(req, **{py: args[wire] for py, wire in names})

    return ViewSpec(
        view,
        Endpoint(tuple(params)),
        auth,
        rate_limited,
        precheck,
        guard=guard,
        max_body_bytes=max_body_bytes,
    )


@overload
def typed_endpoint(fn: TypedView, /) -> ViewSpec: ...


@overload
def typed_endpoint(
    *,
    auth: bool = True,
    rate_limited: bool = True,
    precheck: Precheck | None = None,
    guard: Guard | None = None,
    max_body_bytes: int | None = None,
) -> Callable[[TypedView], ViewSpec]: ...


def typed_endpoint(
    fn: TypedView | None = None,
    /,
    *,
    auth: bool = True,
    rate_limited: bool = True,
    precheck: Precheck | None = None,
    guard: Guard | None = None,
    max_body_bytes: int | None = None,
) -> ViewSpec | Callable[[TypedView], ViewSpec]:
    """The view as a route's `ViewSpec`, its parameters read from its signature.

    `guard` is checked before any parameter is parsed (see guards.py).
    """
    if fn is not None:
        return _spec(fn, auth, rate_limited, precheck, guard, max_body_bytes)

    def wrap(view: TypedView) -> ViewSpec:
        return _spec(view, auth, rate_limited, precheck, guard, max_body_bytes)

    return wrap
