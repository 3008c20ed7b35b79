"""Alembic environment of the wiki service's migration history."""

from atrium.core.migrations import run_env
from atrium.wiki.schema import metadata

run_env(metadata)
