"""Builds the ASGI application: chat and wiki side by side, with their start-up and shut-down hooks."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware

from atrium.core import workers
from atrium.core.db import open_database
from atrium.core.route_index import IndexedRouter
from atrium.core.service import Service
from atrium.core.sessions import SessionStore
from atrium.ops.access_log import AccessLog
from atrium.ops.metrics import Metrics, ObservedApp
from atrium.ops.probes import probe_routes
from atrium.ops.setup_page import setup_routes
from atrium.settings import Settings
from atrium.workspace.mail_sender import mail_sender_service

# Expired browser sessions are deleted this often (a lookup ignores them anyway).
SESSION_PURGE_SECONDS = 3600


def session_service(settings: Settings) -> Service:
    """The shared browser-session store (`core` database or schema) with its migrations."""
    db = open_database(settings.database_url, settings.sqlite_path("core"), "core")
    store = SessionStore(db)
    tasks: list[asyncio.Task[None]] = []

    async def purge_loop() -> None:
        while True:
            await asyncio.sleep(SESSION_PURGE_SECONDS)
            await store.purge_expired()

    async def startup() -> None:
        if settings.migrate_on_start:
            # Imported here: Alembic stays out of processes that do not migrate.
            from atrium.core import migrations

            migrations.upgrade("core", settings.database_url, settings.sqlite_path("core"))
        tasks.append(asyncio.create_task(purge_loop()))

    async def shutdown() -> None:
        for task in tasks:
            task.cancel()
        db.close()

    service = Service("sessions", [], [startup], [shutdown])
    service.state["store"] = store
    return service


def build_services(
    settings: Settings, services: tuple[str, ...] = ("chat", "wiki")
) -> list[Service]:
    sessions = session_service(settings)
    store: SessionStore = sessions.state["store"]
    built: list[Service] = [sessions]
    if "chat" in services:
        from atrium.chat.app import create_service as create_chat

        built.append(create_chat(settings, store))
    if "wiki" in services:
        from atrium.wiki.app import create_service as create_wiki

        built.append(create_wiki(settings, store))
    if "chat" in services and "wiki" in services:
        from atrium.workspace.bridge.service import bridge_service

        # First of the services' routes: see `bridge_service`.
        built.insert(1, bridge_service(settings, built[1], built[2]))
    # Imported here: a process building no app (the CLI) does not load both services.
    from atrium.workspace.compose import compose

    sessions.state["members"] = compose(built, settings.base_url, settings.wiki_guest_edits)
    built.append(mail_sender_service(settings, list(built)))
    if settings.backup_dir is not None and settings.backup_interval_hours > 0:
        from atrium.ops.schedule import backup_service

        built.append(backup_service(settings))
    return built


def create_app(
    settings: Settings | None = None, services: tuple[str, ...] | None = None
) -> Starlette:
    settings = settings or Settings.from_env()
    workers.configure(settings.worker_threads)
    parts = build_services(settings, services or settings.services)

    services_by_name = {part.name: part for part in parts}
    metrics = Metrics()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        for part in parts:
            for hook in part.startup:
                await hook()
        await metrics.start()
        try:
            yield
        finally:
            await metrics.stop()
            for part in reversed(parts):
                for hook in part.shutdown:
                    await hook()

    metrics.services = services_by_name
    # The probes first: the services' catch-all routes would otherwise answer their paths.
    routes = probe_routes(settings, services_by_name, metrics) + setup_routes(settings)
    routes += [route for part in parts for route in part.routes]
    access_log = AccessLog() if settings.log_format == "json" else None
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(ObservedApp, metrics=metrics, access_log=access_log)],
    )
    # Over 200 routes: each request tries only those its first path segment can match.
    app.router = IndexedRouter(routes=routes, lifespan=lifespan)
    app.state.settings = settings
    app.state.services = services_by_name
    app.state.metrics = metrics
    # Markup that lets clients discover the services from the site root's page.
    app.state.root_head = "\n".join(part.root_head for part in parts if part.root_head)
    # The wiki's pages reach the same store here, and the person's one account.
    app.state.sessions = app.state.services["sessions"].state["store"]
    app.state.account_links = app.state.services["sessions"].state.get("members")
    return app


# The collector's thresholds while serving (CPython's default: 700, 10, 10): rendering a message
# leaves cyclic garbage, and the default's frequent collections, old ones over the whole heap of
# imported modules, held the event loop for long pauses (figures: docs/decisions/0001).
SERVING_GC_THRESHOLDS = (7000, 10, 10)
# Seconds between GIL hand-offs while the server runs (`tune_threads_for_serving`).
SERVING_SWITCH_INTERVAL = 0.001


def tune_gc_for_serving() -> None:
    """Move everything alive after start-up (modules, the app) out of the collector's sight, and
    collect young garbage in larger batches. For the serving process only: a process that builds
    many apps (the tests) would keep each one forever."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SERVING_GC_THRESHOLDS)


def tune_threads_for_serving() -> None:
    """Hand the GIL between threads more often than Python's 5 ms default. A rendering thread
    holds the GIL while it works, and a request served meanwhile needs it back many times (each
    await, each socket write): at 5 ms a hand-off, a 1 ms request waits hundreds of them. For
    the serving process only, as `tune_gc_for_serving`."""
    sys.setswitchinterval(SERVING_SWITCH_INTERVAL)


def app_from_env() -> Starlette:
    """The factory `atrium serve` hands to granian (`atrium.server:app_from_env`)."""
    app = create_app(Settings.from_env())
    tune_gc_for_serving()
    tune_threads_for_serving()
    return app
