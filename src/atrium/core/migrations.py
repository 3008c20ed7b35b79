"""Alembic, driven from code: `atrium serve` and the CLI bring each service's schema up to date.

Each service keeps its own migration history under `atrium/migrations/<service>/` and its own
version table, so chat and wiki can be deployed, upgraded or left out independently.
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command, context
from alembic.config import Config

from atrium.core.db import sqlalchemy_url

MIGRATIONS_ROOT = Path(__file__).resolve().parent.parent / "migrations"


def alembic_config(service: str, database_url: str | None, sqlite_path: Path) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_ROOT / service))
    config.set_main_option("sqlalchemy.url", sqlalchemy_url(database_url, sqlite_path))
    config.attributes["service"] = service
    return config


def upgrade(service: str, database_url: str | None, sqlite_path: Path) -> None:
    """Apply every pending migration of one service (idempotent)."""
    sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    # "heads": independent branches of one history (merged later) all apply.
    command.upgrade(alembic_config(service, database_url, sqlite_path), "heads")


def run_env(metadata: sa.MetaData) -> None:
    """The body of each history's env.py: online migrations in the service's own schema."""
    config = context.config
    service: str = config.attributes["service"]
    url = config.get_main_option("sqlalchemy.url")
    assert url is not None
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.connect() as connection:
        is_postgres = connection.dialect.name == "postgresql"
        if is_postgres:
            try:
                connection.execute(sa.text(f'CREATE SCHEMA IF NOT EXISTS "{service}"'))
            except (sa.exc.IntegrityError, sa.exc.ProgrammingError):
                # Another connection (the service's pool) created it at the same moment.
                connection.rollback()
            connection.execute(sa.text(f'SET search_path TO "{service}"'))
            connection.commit()
        context.configure(
            connection=connection,
            target_metadata=metadata,
            version_table=f"alembic_version_{service}",
            version_table_schema=service if is_postgres else None,
            render_as_batch=True,
            compare_type=True,
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()
