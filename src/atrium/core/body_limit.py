"""One bound on request bodies for every route of every service.

A body over the bound is refused before it is read into memory: at once when its declared
`Content-Length` passes the bound, else (a chunked body) as soon as the bytes received pass it,
without reading the rest. Each service picks its bound per request and answers the refusal in its
own protocol's format; this module only counts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import Message

# What a multipart body may add to the file it carries (boundaries, part headers, other fields).
MULTIPART_OVERHEAD = 64 * 1024


class BodyTooLarge(Exception):
    """The request's body passes `limit` bytes (declared, or counted while it arrived)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"Request body too large (limit: {limit} bytes)")
        self.limit = limit


def is_multipart(request: Request) -> bool:
    return request.headers.get("content-type", "").lower().startswith("multipart/form-data")


def declared_length(request: Request) -> int | None:
    """The body's `Content-Length`, when the request declares a valid one."""
    declared = request.headers.get("content-length", "")
    return int(declared) if declared.isascii() and declared.isdigit() else None


def limited(
    request: Request,
    limit: int,
    too_large: Callable[[int], Exception] = BodyTooLarge,
) -> Request:
    """The request, refusing its body once it is known to pass `limit` bytes: at once when the
    declared Content-Length does, else as the chunks arrive (a body sent without a length).

    The refusal is the exception `too_large(limit)` raised from the body's reader, so the view
    reading the body answers it in its protocol's format.
    """
    length = declared_length(request)
    too_long = length is not None and length > limit
    received = 0

    async def receive() -> Message:
        nonlocal received
        if too_long:
            raise too_large(limit)
        message = await request.receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise too_large(limit)
        return message

    return Request(request.scope, receive)


Endpoint = Callable[[Request], Awaitable[Response]]


def bounded(endpoint: Endpoint, limit: int) -> Endpoint:
    """A browser form's endpoint with its body bounded; a refusal is a plain 413 page, as the
    web server in front of an application answers it."""

    async def bounded_endpoint(request: Request) -> Response:
        try:
            return await endpoint(limited(request, limit))
        except BodyTooLarge as exc:
            return PlainTextResponse(str(exc), status_code=413)

    return bounded_endpoint
