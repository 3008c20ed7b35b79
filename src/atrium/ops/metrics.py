"""Prometheus metrics of one process, and the middleware that counts requests and logs them.

Requests are counted by method, route (the route's template, so the label stays a short list) and
status, and timed in a histogram. The rest is read when `/metrics` is scraped, from the running
services: event queues and their bytes, the caches' bytes and entries, the thread pools, the
asyncio tasks, the PostgreSQL pools, scheduled backups, and the process's memory. Other parts add
their figures with `add_source` (the mail outbox's, for one). Each worker of a scale-out
deployment answers for itself: scrape each one (see the README's operations section).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, ProcessCollector
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from atrium.core import workers
from atrium.core.bounded_cache import BoundedCache
from atrium.core.service import Service
from atrium.ops.access_log import AccessLog, request_id

# Long-polls (`GET /events`) wait up to about 45 s, hence the top buckets.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)

# Figures a part of the app contributes at scrape time: a function yielding metric families.
Source = Callable[[dict[str, Service]], Iterable[Metric]]


class Metrics:
    """One app's registry: the request instruments and the figures read at scrape time."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "atrium_http_requests",
            "HTTP requests answered, by method, route and status.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "atrium_http_request_duration_seconds",
            "Time from a request's arrival to the end of its response, by method and route.",
            ["method", "route"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.in_progress = Gauge(
            "atrium_http_requests_in_progress",
            "Requests being answered now.",
            registry=self.registry,
        )
        ProcessCollector(registry=self.registry)  # memory, CPU, open files
        self.services: dict[str, Service] = {}
        self.sources: list[Source] = [
            event_queue_figures,
            cache_figures,
            pool_figures,
            backup_figures,
        ]
        self.registry.register(_Figures(self))

    def add_source(self, source: Source) -> None:
        """Figures read at scrape time from the running services: the mail outbox's queue
        length and oldest message belong here when the outbox exists."""
        self.sources.append(source)


class _Figures(Collector):
    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        for source in self.metrics.sources:
            yield from source(self.metrics.services)
        tasks = GaugeMetricFamily(
            "atrium_asyncio_tasks", "Tasks of the event loop: requests, long-polls, loops."
        )
        try:
            tasks.add_metric([], len(asyncio.all_tasks()))
        except RuntimeError:
            return  # scraped outside the event loop: no tasks to count
        yield tasks
        busy = GaugeMetricFamily(
            "atrium_worker_threads_busy", "Threads at work in each pool.", labels=["pool"]
        )
        waiting = GaugeMetricFamily(
            "atrium_worker_tasks_waiting", "Tasks waiting for a pool's thread.", labels=["pool"]
        )
        for pool, (working, queued) in workers.load().items():
            busy.add_metric([pool], working)
            waiting.add_metric([pool], queued)
        yield busy
        yield waiting


def _runtime(services: dict[str, Service], name: str) -> Any:
    service = services.get(name)
    return None if service is None else service.state.get("runtime")


def event_queue_figures(services: dict[str, Service]) -> Iterable[Metric]:
    runtime = _runtime(services, "chat")
    queues = getattr(getattr(runtime, "events", None), "queues", None)
    if queues is None:
        return  # no chat, or queues kept in Redis (counted there, not by a worker)
    count = GaugeMetricFamily("atrium_event_queues", "Chat event queues held in this process.")
    count.add_metric([], len(queues))
    size = GaugeMetricFamily(
        "atrium_event_queues_bytes", "Undelivered events of those queues, in bytes."
    )
    size.add_metric([], runtime.events.total_bytes)
    yield count
    yield size


def _caches(value: Any, name: str, depth: int = 0) -> Iterator[tuple[str, BoundedCache[Any, Any]]]:
    """The bounded caches in one entry of `Database.caches` (a cache, or an object of them)."""
    if isinstance(value, BoundedCache):
        yield name, value
    elif depth < 2 and isinstance(value, dict):
        for key, inner in value.items():
            yield from _caches(inner, f"{name}.{key}", depth + 1)
    elif depth < 2 and hasattr(value, "__dict__"):
        for key, inner in vars(value).items():
            yield from _caches(inner, f"{name}.{key}", depth + 1)


def cache_figures(services: dict[str, Service]) -> Iterable[Metric]:
    size = GaugeMetricFamily(
        "atrium_cache_bytes", "Estimated bytes held by each cache.", labels=["service", "cache"]
    )
    entries = GaugeMetricFamily(
        "atrium_cache_entries", "Entries held by each cache.", labels=["service", "cache"]
    )
    for name in ("chat", "wiki"):
        db = getattr(_runtime(services, name), "db", None)
        if db is None:
            continue
        for key, value in list(db.caches.items()):
            for label, cache in _caches(value, str(key)):
                size.add_metric([name, label], cache.bytes)
                entries.add_metric([name, label], len(cache))
    yield size
    yield entries


def pool_figures(services: dict[str, Service]) -> Iterable[Metric]:
    family = GaugeMetricFamily(
        "atrium_db_pool",
        "PostgreSQL connection pools: connections open, idle, and requests waiting for one.",
        labels=["service", "figure"],
    )
    store = services.get("sessions")
    dbs = {
        "chat": getattr(_runtime(services, "chat"), "db", None),
        "wiki": getattr(_runtime(services, "wiki"), "db", None),
        "core": getattr(store.state.get("store"), "db", None) if store else None,
    }
    for name, db in dbs.items():
        if db is None:
            continue
        for figure, value in db.pool_stats().items():
            family.add_metric([name, figure], value)
    yield family


def backup_figures(services: dict[str, Service]) -> Iterable[Metric]:
    service = services.get("backups")
    if service is None:
        return
    schedule = service.state["schedule"]
    taken = GaugeMetricFamily(
        "atrium_scheduled_backups_taken", "Scheduled backups this process has written."
    )
    taken.add_metric([], schedule.taken)
    failing = GaugeMetricFamily(
        "atrium_scheduled_backup_failing", "1 when the last scheduled backup attempt failed."
    )
    failing.add_metric([], 1 if schedule.last_error else 0)
    yield taken
    yield failing


class ObservedApp:
    """ASGI middleware around the whole app: the request metrics, the request id (taken from a
    well-formed `X-Request-Id` or made, and sent back), and the access log when asked for."""

    def __init__(self, app: ASGIApp, metrics: Metrics, access_log: AccessLog | None) -> None:
        self.app = app
        self.metrics = metrics
        self.access_log = access_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        rid = request_id(scope)
        status = 500
        sent = 0

        async def observe(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", rid.encode()))
                message = {**message, "headers": headers}
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
            await send(message)

        self.metrics.in_progress.inc()
        try:
            await self.app(scope, receive, observe)
        finally:
            self.metrics.in_progress.dec()
            elapsed = time.perf_counter() - started
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            method = scope["method"]
            self.metrics.requests.labels(method, route, str(status)).inc()
            self.metrics.latency.labels(method, route).observe(elapsed)
            if self.access_log is not None:
                self.access_log.write(scope, rid, status, elapsed, sent)
