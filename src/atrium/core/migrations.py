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


def known_revisions(service: str) -> set[str]:
    """Every revision this code's history of `service` has."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config(service, None, Path("/nonexistent")))
    return {rev.revision for rev in script.walk_revisions()}


def code_heads(service: str) -> set[str]:
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config(service, None, Path("/nonexistent")))
    return set(script.get_heads())


def database_heads(service: str, database_url: str | None, sqlite_path: Path) -> set[str] | None:
    """The revisions recorded in a service's database; None when it was never migrated (no file,
    no version table)."""
    if not database_url and not sqlite_path.exists():
        return None
    engine = sa.create_engine(sqlalchemy_url(database_url, sqlite_path), poolclass=sa.pool.NullPool)
    table = f"alembic_version_{service}"
    try:
        with engine.connect() as connection:
            schema = service if connection.dialect.name == "postgresql" else None
            if not sa.inspect(connection).has_table(table, schema=schema):
                return None
            name = f'"{schema}"."{table}"' if schema else f'"{table}"'
            rows = connection.execute(sa.text(f"SELECT version_num FROM {name}")).fetchall()
    finally:
        engine.dispose()
    return {row[0] for row in rows}


class NewerData(Exception):
    """The database was written by a newer Atrium: its revision is unknown to this code."""


def pending(service: str, database_url: str | None, sqlite_path: Path) -> bool:
    """Whether existing data of `service` has migrations to apply (False for a new database,
    which has nothing to lose). Raises NewerData for a revision this code does not know."""
    heads = database_heads(service, database_url, sqlite_path)
    if heads is None:
        return False
    unknown = heads - known_revisions(service)
    if unknown:
        raise NewerData(
            f"the {service} database is at revision {', '.join(sorted(unknown))}, which this "
            "version of Atrium does not know: it was written by a newer version. Run that "
            "version, or restore a backup taken before the upgrade"
        )
    return heads != code_heads(service)
