"""The API's action modules (`action=…`): parameters in, a call into `changes/`, the result out."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.params import ModuleSpec

Handler = Callable[[ApiContext, ModuleSpec], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Action:
    spec: ModuleSpec
    handler: Handler
    token: str | None = None  # the token type the module requires (checked before it runs)
