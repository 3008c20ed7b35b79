"""What an operator's monitoring asks: `/health`, `/ready` and `/metrics`.

`/health` is public and says only that the process answers (a load balancer's liveness check).
`/ready` looks at what serving needs: each service's database, Redis when configured, and the
migrations at the heads this code expects. It and `/metrics` show the deployment's insides, so
they answer loopback clients that came straight (no proxy header: a proxy on the same host
would otherwise make every visitor loopback) and anyone with the bearer `ATRIUM_METRICS_TOKEN`.
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any

import sqlalchemy as sa
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from atrium.core.db import Conn, Database
from atrium.core.secrets import constant_time_equals
from atrium.core.service import Service
from atrium.ops.metrics import Metrics
from atrium.ops.migration_heads import code_heads
from atrium.settings import Settings

# Headers a reverse proxy adds: a request carrying one came from elsewhere, whatever its socket.
PROXY_HEADERS = ("x-forwarded-for", "forwarded", "x-real-ip")
# Seconds each readiness check may take before it counts as failed.
CHECK_TIMEOUT = 3.0


def may_observe(request: Request, token: str | None) -> bool:
    authorization = request.headers.get("authorization", "")
    scheme, _, given = authorization.partition(" ")
    if token and scheme.lower() == "bearer" and constant_time_equals(given.strip(), token):
        return True
    if any(name in request.headers for name in PROXY_HEADERS):
        return False
    host = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _refused() -> Response:
    return PlainTextResponse(
        "Forbidden: this answers loopback clients, or the bearer token ATRIUM_METRICS_TOKEN.\n",
        status_code=403,
    )


def _databases(services: dict[str, Service]) -> dict[str, Database]:
    found: dict[str, Database] = {}
    store = services["sessions"].state.get("store") if "sessions" in services else None
    if store is not None:
        found["core"] = store.db
    for name in ("chat", "wiki"):
        runtime = services[name].state.get("runtime") if name in services else None
        if runtime is not None:
            found[name] = runtime.db
    return found


def _recorded_heads(conn: Conn, service: str) -> set[str]:
    rows = conn.scalars(sa.text(f"SELECT version_num FROM alembic_version_{service}"))
    return {str(row) for row in rows}


async def _check_database(name: str, db: Database) -> str:
    heads = await db.read(_recorded_heads, name)
    expected = code_heads(name)
    if heads != expected:
        return (
            f"migrations: at {', '.join(sorted(heads)) or 'none'}, "
            f"expected {', '.join(sorted(expected))}"
        )
    return "ok"


async def _check_redis(url: str) -> str:
    import redis.asyncio

    client = redis.asyncio.Redis.from_url(url, socket_connect_timeout=CHECK_TIMEOUT)
    try:
        await client.ping()
    finally:
        await client.aclose()
    return "ok"


def probe_routes(
    settings: Settings, services: dict[str, Service], metrics: Metrics
) -> list[BaseRoute]:
    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def ready(request: Request) -> Response:
        if not may_observe(request, settings.metrics_token):
            return _refused()
        checks: dict[str, Any] = {}
        databases = _databases(services)
        if len(databases) < 1 + len(settings.services):
            checks["services"] = "starting"
        for name, db in databases.items():
            checks[name] = await _guarded(_check_database(name, db))
        if settings.redis_url:
            checks["redis"] = await _guarded(_check_redis(settings.redis_url))
        ok = all(value == "ok" for value in checks.values())
        return JSONResponse(
            {"status": "ready" if ok else "not ready", "checks": checks},
            status_code=200 if ok else 503,
        )

    async def scrape(request: Request) -> Response:
        if not may_observe(request, settings.metrics_token):
            return _refused()
        await metrics.refresh()
        return Response(metrics.exposition(), media_type=CONTENT_TYPE_LATEST)

    return [
        Route("/health", health, methods=["GET", "HEAD"]),
        Route("/ready", ready, methods=["GET", "HEAD"]),
        Route("/metrics", scrape, methods=["GET"]),
    ]


async def _guarded(check: Any) -> str:
    try:
        result: str = await asyncio.wait_for(check, CHECK_TIMEOUT)
    except Exception as exc:
        return f"failing: {type(exc).__name__}: {str(exc)[:200]}"
    return result
