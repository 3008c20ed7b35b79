"""What every chat request can reach: settings, the database, the rate limiter."""

from __future__ import annotations

from dataclasses import dataclass

from atrium.core.db import Database
from atrium.core.ratelimit import RateLimiter
from atrium.settings import Settings


@dataclass
class ChatRuntime:
    settings: Settings
    db: Database
    limiter: RateLimiter
