"""The wiki's secret key ($wgSecretKey): from the settings, or generated once into the data
directory so that it survives restarts and an operator can read it for tools that sign requests."""

from __future__ import annotations

import os
import secrets

from atrium.settings import Settings


def wiki_secret_key(settings: Settings) -> str:
    if settings.wiki_secret_key:
        return settings.wiki_secret_key
    path = settings.wiki_secret_key_path
    try:
        existing = path.read_text().strip()
    except FileNotFoundError:
        existing = ""
    if existing:
        return existing
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    # O_EXCL: of two processes starting at once, one writes and the other reads its key.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key
