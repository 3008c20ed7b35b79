"""The wiki pages' static files (the skin's CSS, the search box's module), content-hashed."""

from __future__ import annotations

from pathlib import Path

from atrium.core.static_assets import StaticAssets

STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC_PREFIX = "/static/wiki/"

ASSETS = StaticAssets(STATIC_DIR, STATIC_PREFIX)
