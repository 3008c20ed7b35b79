"""Alembic environment of the shared (service-agnostic) history: browser sessions."""

from atrium.core.migrations import run_env
from atrium.core.sessions_schema import metadata

run_env(metadata)
