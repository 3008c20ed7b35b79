"""The HTTP plumbing every chat view shares, so that views stay thin.

A view is `async def view(req: ApiRequest, args: dict) -> dict`: it receives the acting user and
its declared, validated parameters, and returns the data fields of a success response (views are
written with typed keyword arguments instead and wrapped into this form by `typed_endpoint`). This module
does the rest, in one place for every endpoint: authentication, rate limiting, reading parameters
from query string and form body, Zulip's envelope, `ignored_parameters_unsupported`, and turning
any `ChatError` into Zulip's error response. `rest()` builds one route that dispatches by method
and answers a wrong method with Zulip's 405. Every route is served twice, as Zulip does: under
`/api/v1` with HTTP Basic, and under `/json` with the browser session and its CSRF token.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from atrium.chat.auth import authenticate, authenticate_session
from atrium.chat.errors import ChatError
from atrium.chat.models import User
from atrium.chat.params import Endpoint, parse_form, parse_urlencoded
from atrium.chat.runtime import ChatRuntime
from atrium.core import body_limit as body_limit_core
from atrium.core.body_limit import MULTIPART_OVERHEAD
from atrium.core.ratelimit import Verdict
from atrium.core.responses import JSONResponse
from atrium.settings import Settings

log = logging.getLogger(__name__)

API_PREFIX = "/api/v1"
JSON_PREFIX = "/json"
# Routes with no browser twin: a session has no use for an API key.
_NO_JSON_TWIN = frozenset({"/fetch_api_key"})


@dataclass
class ApiRequest:
    runtime: ChatRuntime
    http: Request
    user: User | None

    @property
    def me(self) -> User:
        """The authenticated user (views declared with auth=True always have one)."""
        assert self.user is not None
        return self.user

    @property
    def client_name(self) -> str:
        """Zulip's `client` field: the User-Agent's product name."""
        agent = self.http.headers.get("user-agent", "")
        name = agent.split("/", 1)[0].strip() or "API"
        return name[:30]


View = Callable[[ApiRequest, dict[str, Any]], Awaitable[dict[str, Any]]]
Guard = Callable[[ApiRequest], Awaitable[None]]


# Checks a request before its body is read (an upload's declared size), so that an oversized
# body is refused without being received and spooled first.
Precheck = Callable[[ApiRequest], None]


@dataclass(frozen=True)
class ViewSpec:
    view: View
    endpoint: Endpoint
    auth: bool = True
    rate_limited: bool = True
    precheck: Precheck | None = None
    # Checked before the parameters are parsed, as Zulip's permission decorators are (guards.py).
    guard: Guard | None = None
    # The largest request body this view reads, when it needs more (or less) than the setting.
    max_body_bytes: int | None = None


def api(
    endpoint: Endpoint,
    *,
    auth: bool = True,
    rate_limited: bool = True,
    precheck: Precheck | None = None,
    max_body_bytes: int | None = None,
) -> Callable[[View], ViewSpec]:
    def wrap(view: View) -> ViewSpec:
        return ViewSpec(view, endpoint, auth, rate_limited, precheck, max_body_bytes=max_body_bytes)

    return wrap


def error_response(error: ChatError, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse(
        error.body(), status_code=error.status, headers={**(headers or {}), **error.headers}
    )


def body_too_large(limit: int) -> ChatError:
    return ChatError(f"Request body too large (limit: {limit} bytes)")


def body_limit(settings: Settings, spec: ViewSpec, content_type: str) -> int:
    """The largest body a request may send to this view.

    A multipart body may carry an upload: Starlette spools its files to disk and bounds each
    text field, so it may be as large as the upload limit without filling memory.
    """
    if spec.max_body_bytes is not None:
        return spec.max_body_bytes
    if content_type.lower().startswith("multipart/form-data"):
        upload = settings.max_file_upload_size_mib * 1024 * 1024 + MULTIPART_OVERHEAD
        return max(settings.max_body_bytes, upload)
    return settings.max_body_bytes


def limited(request: Request, limit: int) -> Request:
    """The request, its body refused past `limit` bytes with the chat's error (see core)."""
    return body_limit_core.limited(request, limit, body_too_large)


async def request_values(request: Request) -> dict[str, str]:
    """Query string and form body alike, for every method (Zulip reads PATCH/DELETE bodies too).

    Any body the parsers cannot read (no multipart boundary, bad encoding, too large: see
    `limited`) is answered as a request error here, once for every endpoint.
    """
    # The raw query string as Starlette's `request.query_params` reads it, parsed faster.
    values = dict(parse_urlencoded(request.scope["query_string"].decode("latin-1")))
    if request.method in {"POST", "PATCH", "PUT", "DELETE"}:
        content_type = request.headers.get("content-type", "")
        try:
            if content_type.lower().startswith("multipart/form-data"):
                try:
                    form = await request.form()
                except (HTTPException, MultiPartException) as exc:  # a malformed body
                    detail = exc.detail if isinstance(exc, HTTPException) else exc.message
                    raise ChatError(f"Malformed request body: {detail}") from None
                for key, value in form.multi_items():
                    if isinstance(value, str):
                        values[key] = value
            else:
                body = await request.body()
                if body:
                    values.update(parse_form(body))
        except ClientDisconnect:
            # Nobody reads this answer; it only keeps a gone client out of the error log.
            raise ChatError("Request body incomplete") from None
    return values


async def request_files(request: Request) -> list[UploadFile]:
    """The files of a multipart body (Starlette spools each past 1 MB to disk, so memory stays
    flat); the form is parsed once per request and cached, so this costs nothing more."""
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        return []
    form = await request.form()
    return [value for _key, value in form.multi_items() if isinstance(value, UploadFile)]


async def check_rate_limit(
    runtime: ChatRuntime, key: str, limit: int, window: int
) -> Verdict | None:
    if not runtime.settings.rate_limits.enabled:
        return None
    verdict = await runtime.limiter.hit(key, limit, window)
    if not verdict.allowed:
        retry = verdict.retry_after
        raise ChatError(
            "API usage exceeded rate limit",
            "RATE_LIMIT_HIT",
            429,
            headers={**verdict.headers(), "Retry-After": str(max(1, round(retry)))},
            **{"retry-after": retry},
        )
    return verdict


async def run_view(
    runtime: ChatRuntime, spec: ViewSpec, request: Request, *, browser: bool = False
) -> Response:
    content_type = request.headers.get("content-type", "")
    request = limited(request, body_limit(runtime.settings, spec, content_type))
    try:
        return await _run_view(runtime, spec, request, browser)
    finally:
        # Closes a parsed multipart form: its spooled temporary files are removed at once.
        await request.close()


async def _run_view(
    runtime: ChatRuntime, spec: ViewSpec, request: Request, browser: bool
) -> Response:
    headers: dict[str, str] = {}
    try:
        user = None
        if spec.auth:
            if browser:
                user = await authenticate_session(runtime, request)
            else:
                user = await authenticate(runtime, request.headers.get("authorization"))
            if spec.rate_limited:
                limits = runtime.settings.rate_limits
                verdict = await check_rate_limit(
                    runtime, f"api:user:{user.id}", limits.api_requests, limits.api_window_seconds
                )
                if verdict is not None:
                    headers = verdict.headers()
        api_request = ApiRequest(runtime, request, user)
        if spec.precheck is not None:
            spec.precheck(api_request)
        values = await request_values(request)
        if spec.guard is not None:
            await spec.guard(api_request)
        args, ignored = spec.endpoint.parse(values, request.path_params)
        data = await spec.view(api_request, args)
    except ChatError as error:
        return error_response(error, headers)
    except Exception:
        # A bug, not bad input: log it, and still answer in Zulip's envelope.
        log.exception("unhandled error in %s %s", request.method, request.url.path)
        return error_response(ChatError("Internal server error", status=500), headers)
    body: dict[str, Any] = {"result": "success", "msg": "", **data}
    if ignored:
        body["ignored_parameters_unsupported"] = ignored
    return JSONResponse(body, headers=headers)


class RestRoute(Route):
    """A route under /api/v1 that remembers its views, so that its /json twin can be built."""

    def __init__(self, runtime: ChatRuntime, path: str, by_method: dict[str, ViewSpec]) -> None:
        self.rest_path = path
        self.by_method = by_method
        methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
        super().__init__(API_PREFIX + path, _dispatcher(runtime, by_method, False), methods=methods)


def _dispatcher(
    runtime: ChatRuntime, by_method: dict[str, ViewSpec], browser: bool
) -> Callable[[Request], Awaitable[Response]]:
    allowed = sorted(by_method)

    async def dispatch(request: Request) -> Response:
        spec = by_method.get(request.method)
        if spec is None and request.method == "HEAD":
            spec = by_method.get("GET")
        if spec is None:
            return JSONResponse(
                {"result": "error", "msg": "Method Not Allowed", "allowed_methods": allowed},
                status_code=405,
                headers={"Allow": ", ".join(allowed)},
            )
        return await run_view(runtime, spec, request, browser=browser)

    return dispatch


def rest(runtime: ChatRuntime, path: str, **by_method: ViewSpec) -> Route:
    """One route under /api/v1 whose views are chosen by HTTP method, as Zulip's rest_dispatch."""
    return RestRoute(runtime, path, by_method)


def with_json_twins(runtime: ChatRuntime, routes: list[BaseRoute]) -> list[BaseRoute]:
    """The routes, each REST route followed by its twin under /json (session authentication)."""
    methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    twins: list[BaseRoute] = []
    for route in routes:
        if isinstance(route, RestRoute) and route.rest_path not in _NO_JSON_TWIN:
            twins.append(
                Route(
                    JSON_PREFIX + route.rest_path,
                    _dispatcher(runtime, route.by_method, True),
                    methods=methods,
                )
            )
    twins.append(Route(JSON_PREFIX + "/{path:path}", not_found, methods=methods))
    return [*routes, *twins]


async def not_found(request: Request) -> Response:
    return JSONResponse(
        {"result": "error", "msg": "Not Found", "code": "BAD_REQUEST"}, status_code=404
    )
