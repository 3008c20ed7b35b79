"""Alembic environment of the chat service's migration history."""

from atrium.chat.schema import metadata
from atrium.core.migrations import run_env

run_env(metadata)
