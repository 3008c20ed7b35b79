"""Alembic migration histories, one folder per service."""
