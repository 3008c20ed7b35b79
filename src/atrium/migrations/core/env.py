"""Alembic environment of the shared (service-agnostic) history: browser sessions and identities."""

from atrium.core.identity_schema import metadata
from atrium.core.migrations import run_env

run_env(metadata)
