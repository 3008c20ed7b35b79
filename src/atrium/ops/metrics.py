"""Prometheus metrics of the server, and the middleware that counts requests and logs them.

Requests are counted by method, route (the route's template, so the label stays a short list) and
status, and timed in a histogram. The rest is read from the running services: event queues and
their bytes, the caches' bytes and entries, the thread pools, the asyncio tasks, the PostgreSQL
pools, scheduled backups, and the process's memory. Other parts add their figures with
`add_source`.

One process (the embedded mode) keeps its figures in memory and reads the services' when scraped.
With several workers (see ops/metrics_dir.py) a scrape reaches one of them, so every figure goes
through prometheus-client's multiprocess files: the request counters and histograms as they
change, and each worker's service figures as gauges it rewrites every `PUBLISH_SECONDS` (and
just before it answers a scrape). Those are summed over the live workers, except the process's
own figures, which stay one series per worker (a `pid` label), and the figures every worker reads
alike (the mail outbox's, in the shared database) or of which one worker's is the answer (a
failing backup), of which the largest is shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, Literal

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
    multiprocess,
    values,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from atrium.core import workers
from atrium.core.bounded_cache import BoundedCache
from atrium.core.mail import outbox
from atrium.core.service import Service
from atrium.ops.access_log import AccessLog, request_id
from atrium.ops.metrics_dir import ENV as MULTIPROCESS_ENV

log = logging.getLogger("atrium.metrics")

# Long-polls (`GET /events`) wait up to about 45 s, hence the top buckets.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)

# Figures a part of the app contributes at scrape time: a function yielding metric families.
Source = Callable[[dict[str, Service]], Iterable[Metric]]
# Figures that take a database query, read before a scrape (or a worker's publication).
Reader = Callable[[dict[str, Service]], Awaitable[list[Metric]]]
# Seconds a reader may take before its figures are left out of that scrape.
READ_TIMEOUT = 3.0

# Seconds between a worker's rewrites of its service figures in the multiprocess mode.
PUBLISH_SECONDS = 5.0
# Published figures that stay one series per worker, and those of which the largest counts.
PER_WORKER_PREFIX = "process_"
# The mail outbox's figures are the shared database's: every worker reads the same ones.
LARGEST = frozenset(
    {
        "atrium_scheduled_backup_failing",
        "atrium_mail_outbox_unsent",
        "atrium_mail_outbox_oldest_seconds",
    }
)


def multiprocess_folder() -> str | None:
    """The multiprocess folder, when prometheus-client runs in that mode in this process (it
    chose when it was first imported, from the environment)."""
    if values.ValueClass is values.MutexValue:
        return None
    return os.environ.get(MULTIPROCESS_ENV) or None


class Metrics:
    """One app's metrics: the request instruments and the figures read from the services."""

    def __init__(self) -> None:
        self.folder = multiprocess_folder()
        # The instruments' own registry; in the multiprocess mode their values live in the
        # folder's files, and a scrape reads those instead.
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
            multiprocess_mode="livesum",
        )
        self.services: dict[str, Service] = {}
        self.sources: list[Source] = [
            event_queue_figures,
            cache_figures,
            pool_figures,
            backup_figures,
        ]
        self.readers: list[Reader] = [mail_outbox_figures]
        self.read: list[Metric] = []
        self.figures = _Figures(self)
        self.process = ProcessCollector(registry=None)  # memory, CPU, open files
        self.published: dict[str, tuple[Gauge, tuple[str, ...]]] = {}
        self.publisher: asyncio.Task[None] | None = None
        if self.folder is None:
            self.registry.register(self.process)
            self.registry.register(self.figures)

    def add_source(self, source: Source) -> None:
        """More figures read from the running services (a function yielding metric families)."""
        self.sources.append(source)

    async def refresh(self) -> None:
        """Read the figures that take a query; call before `exposition` or `publish`."""
        read: list[Metric] = []
        for reader in self.readers:
            try:
                read += await asyncio.wait_for(reader(self.services), READ_TIMEOUT)
            except Exception:  # a database away must not fail the scrape of the rest
                log.exception("reading figures for the metrics")
        self.read = read

    def exposition(self) -> bytes:
        """The text a scrape gets: this process's figures, or every live worker's summed."""
        if self.folder is None:
            return generate_latest(self.registry)
        self.publish()
        registry = CollectorRegistry()
        collector = multiprocess.MultiProcessCollector
        collector(registry, path=self.folder)  # type: ignore[no-untyped-call]
        return generate_latest(registry)

    async def start(self) -> None:
        """In the multiprocess mode, begin publishing this worker's figures."""
        if self.folder is not None:
            self.publisher = asyncio.create_task(self._publish_loop())

    async def stop(self) -> None:
        """Stop publishing; this worker's gauges leave the sums (its counts stay in them)."""
        if self.publisher is not None:
            self.publisher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.publisher
        if self.folder is not None:
            dead = multiprocess.mark_process_dead
            dead(os.getpid(), self.folder)  # type: ignore[no-untyped-call]

    async def _publish_loop(self) -> None:
        while True:
            try:
                await self.refresh()
                self.publish()
            except Exception:  # a figure that cannot be read must not end the loop for good
                log.exception("publishing the metrics")
            await asyncio.sleep(PUBLISH_SECONDS)

    def publish(self) -> None:
        """Write this worker's service and process figures to its gauges in the folder."""
        families = [*self.figures.collect(), *self.process.collect()]
        for family in families:
            if family.type != "gauge":
                continue  # the process's CPU seconds, a counter: not summed across workers
            for sample in family.samples:
                gauge = self._gauge(sample.name, family.documentation, tuple(sample.labels))
                if gauge is None:
                    continue
                target = gauge.labels(*sample.labels.values()) if sample.labels else gauge
                target.set(sample.value)

    def _gauge(self, name: str, documentation: str, labels: tuple[str, ...]) -> Gauge | None:
        if name not in self.published:
            mode: Literal["liveall", "livemax", "livesum"]
            if name.startswith(PER_WORKER_PREFIX):
                mode = "liveall"
            elif name in LARGEST:
                mode = "livemax"
            else:
                mode = "livesum"
            gauge = Gauge(name, documentation, labels, registry=None, multiprocess_mode=mode)
            self.published[name] = (gauge, labels)
        gauge, declared = self.published[name]
        # A figure's labels are fixed by its source; a source that changed them is skipped.
        return gauge if declared == labels else None


class _Figures(Collector):
    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        for source in self.metrics.sources:
            yield from source(self.metrics.services)
        yield from self.metrics.read
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


async def mail_outbox_figures(services: dict[str, Service]) -> list[Metric]:
    service = services.get("mail")
    boxes = service.state.get("outboxes") if service is not None else None
    if not boxes:
        return []  # before the sender started
    unsent = GaugeMetricFamily(
        "atrium_mail_outbox_unsent",
        "Mails written and not yet accepted by the mail server, by service.",
        labels=["service"],
    )
    oldest = GaugeMetricFamily(
        "atrium_mail_outbox_oldest_seconds",
        "Age of the oldest of those mails, by service (0 when none waits).",
        labels=["service"],
    )
    now = time.time()
    for box in boxes:
        count, created = await box.db.read(outbox.backlog, box.table)
        unsent.add_metric([box.name], count)
        oldest.add_metric([box.name], 0.0 if created is None else max(0.0, now - created))
    return [unsent, oldest]


class ObservedApp:
    """ASGI middleware around the whole app: the request metrics, the request id (taken from a
    well-formed `X-Request-Id` or made, and sent back), and the access log when asked for."""

    def __init__(self, app: ASGIApp, metrics: Metrics, access_log: AccessLog | None) -> None:
        self.app = app
        self.metrics = metrics
        self.access_log = access_log
        # The instruments' children per (method, route, status): `labels` checks and looks up
        # its values on every call, a cost every request paid (routes and statuses are few).
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    def _instruments(self, method: str, route: str, status: int) -> tuple[Any, Any]:
        key = (method, route, status)
        found = self._children.get(key)
        if found is None:
            found = (
                self.metrics.requests.labels(method, route, str(status)),
                self.metrics.latency.labels(method, route),
            )
            self._children[key] = found
        return found

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
            count, latency = self._instruments(scope["method"], route, status)
            count.inc()
            latency.observe(elapsed)
            if self.access_log is not None:
                self.access_log.write(scope, rid, status, elapsed, sent)
