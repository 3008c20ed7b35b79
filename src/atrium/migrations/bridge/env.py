"""Alembic environment of the workspace bridge's history: the wiki feed's rules, what they
posted, and the workspace settings."""

from atrium.core.migrations import run_env
from atrium.workspace.bridge.schema import metadata

run_env(metadata)
