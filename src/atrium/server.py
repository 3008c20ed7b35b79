"""Builds the ASGI application: chat and wiki side by side, with their start-up and shut-down hooks."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette

from atrium.core.service import Service
from atrium.settings import Settings


def build_services(
    settings: Settings, services: tuple[str, ...] = ("chat", "wiki")
) -> list[Service]:
    built: list[Service] = []
    if "chat" in services:
        from atrium.chat.app import create_service as create_chat

        built.append(create_chat(settings))
    if "wiki" in services:
        from atrium.wiki.app import create_service as create_wiki

        built.append(create_wiki(settings))
    return built


def create_app(
    settings: Settings | None = None, services: tuple[str, ...] | None = None
) -> Starlette:
    settings = settings or Settings.from_env()
    parts = build_services(settings, services or settings.services)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        for part in parts:
            for hook in part.startup:
                await hook()
        try:
            yield
        finally:
            for part in reversed(parts):
                for hook in part.shutdown:
                    await hook()

    routes = [route for part in parts for route in part.routes]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.settings = settings
    app.state.services = {part.name: part for part in parts}
    return app


def app_from_env() -> Starlette:
    """The factory `atrium serve` hands to granian (`atrium.server:app_from_env`)."""
    return create_app(Settings.from_env())
