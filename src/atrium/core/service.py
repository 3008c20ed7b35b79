"""What a service (chat, wiki) hands to the server: its routes and its start/stop hooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.routing import BaseRoute


@dataclass
class Service:
    name: str
    routes: Sequence[BaseRoute]
    startup: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    shutdown: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    # Objects tests and the CLI may reach (the chat runtime, the wiki database, ...).
    state: dict[str, Any] = field(default_factory=dict)
    # Markup this service adds to the head of the site root's page, which another service may
    # serve: how clients that are given the bare host discover it.
    root_head: str = ""
