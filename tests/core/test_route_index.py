"""The indexed router answers every request with the route Starlette's own walk would choose."""

from __future__ import annotations

import re

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route, Router

from atrium.core.route_index import IndexedRouter


def _answer(name: str):
    async def endpoint(request: Request) -> PlainTextResponse:
        return PlainTextResponse(f"{name} {sorted(request.path_params.items())}")

    return endpoint


def _routes() -> list:  # type: ignore[type-arg]
    return [
        Route("/health", _answer("health")),
        Route("/api/v1/messages", _answer("messages GET"), methods=["GET"]),
        Route("/api/v1/messages/{id:int}", _answer("message")),
        # A catch-all placed between two routes of the same segment: order must hold.
        Route("/{first}/v1/messages", _answer("first-param"), methods=["POST"]),
        Route("/api/v1/messages", _answer("messages POST later"), methods=["POST"]),
        Route("/json/{path:path}", _answer("json catch-all")),
        Route("/", _answer("root")),
        Route("/login", _answer("login")),
        Route("/wiki/", _answer("wiki main")),
        Route("/wiki/{title:path}", _answer("wiki page")),
        Mount("/static", routes=[Route("/{name}", _answer("static"))]),
        Route("/w/api.php", _answer("api"), methods=["GET", "POST"]),
        Route("/{anything:path}", _answer("fallback"), methods=["PUT"]),
    ]


REQUESTS = [
    ("GET", "/health"),
    ("GET", "/api/v1/messages"),
    ("POST", "/api/v1/messages"),  # the catch-all comes first
    ("DELETE", "/api/v1/messages"),  # 405 from a partial match
    ("GET", "/api/v1/messages/12"),
    ("GET", "/api/v1/messages/x"),
    ("GET", "/json/a/b"),
    ("GET", "/"),
    ("GET", "/login"),
    ("GET", "/login/"),  # redirected to /login
    ("GET", "/wiki"),  # redirected to /wiki/
    ("GET", "/wiki/Main_Page"),
    ("GET", "/static/app.js"),
    ("GET", "/w/api.php"),
    ("PUT", "/w/api.php"),  # the PUT catch-all: a full match after a partial one
    ("PUT", "/nowhere/at/all"),
    ("GET", "/nowhere"),
    ("GET", "/%2e%2e/etc"),
]


async def _answer_of(router_class: type[Router], method: str, path: str) -> httpx.Response:
    app = Starlette()
    app.router = router_class(routes=_routes())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        return await client.request(method, path)


@pytest.mark.anyio
@pytest.mark.parametrize(("method", "path"), REQUESTS)
async def test_same_answer_as_starlettes_walk(method: str, path: str) -> None:
    expected = await _answer_of(Router, method, path)
    got = await _answer_of(IndexedRouter, method, path)
    assert (got.status_code, got.text, got.headers.get("location")) == (
        expected.status_code,
        expected.text,
        expected.headers.get("location"),
    )


def test_every_route_of_the_app_is_still_reached(tmp_path, monkeypatch) -> None:
    """Each route of the real app, given its own path, is the route the indexed router picks."""
    monkeypatch.setenv("ATRIUM_DATA_DIR", str(tmp_path))
    from atrium.server import create_app

    app = create_app()
    assert isinstance(app.router, IndexedRouter)
    router = app.router
    for route in router.routes:
        path = getattr(route, "path", None)
        if not isinstance(path, str) or not path.startswith("/"):
            continue
        concrete = re.sub(r"\{[^}:]+:int\}", "7", path)
        concrete = re.sub(r"\{[^}]+\}", "x", concrete)
        scope = {"type": "http", "path": concrete, "root_path": "", "method": "GET"}
        walked = next(r for r in router.routes if r.matches(dict(scope))[0].name != "NONE")
        first = concrete[1:].split("/", 1)[0]
        indexed = next(
            r for r in router._candidates(first) if r.matches(dict(scope))[0].name != "NONE"
        )
        assert indexed is walked, path
