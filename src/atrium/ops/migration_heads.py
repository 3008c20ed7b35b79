"""The migration heads this code expects and those a database records, read without Alembic.

`/ready` compares them, and so does `atrium serve` before it decides to migrate. The workers never
load Alembic (about 10 MB for the life of the process, see `Settings.migrate_on_start`), and a
server whose databases are current starts without it (loading Alembic's environment and every
migration file costs about a second), so the files' `revision` and `down_revision` lines are read
as text: a head is a revision no other one revises.
"""

from __future__ import annotations

import ast
import functools
import re
import sqlite3
from pathlib import Path

MIGRATIONS_ROOT = Path(__file__).resolve().parent.parent / "migrations"
_ASSIGNMENT = re.compile(r"^(revision|down_revision)\b[^=]*=\s*(.+)$", re.MULTILINE)


@functools.cache
def code_heads(service: str) -> frozenset[str]:
    revisions: set[str] = set()
    revised: set[str] = set()
    for path in (MIGRATIONS_ROOT / service / "versions").glob("*.py"):
        values = {
            name: ast.literal_eval(value.strip())
            for name, value in _ASSIGNMENT.findall(path.read_text(encoding="utf-8"))
        }
        if "revision" not in values:
            continue
        revisions.add(values["revision"])
        down = values.get("down_revision")
        if isinstance(down, str):
            revised.add(down)
        elif down:
            revised.update(down)
    return frozenset(revisions - revised)


def recorded_heads(service: str, database_url: str | None, sqlite_path: Path) -> set[str] | None:
    """The revisions `service`'s database records; None when there is no database or no version
    table (never migrated), or it cannot be read: then Alembic is the one to look closer."""
    table = f"alembic_version_{service}"
    if database_url and not database_url.startswith("sqlite"):
        return _postgres_heads(database_url, service, table)
    try:
        # mode=rw: never create the file a missing database would be.
        conn = sqlite3.connect(f"file:{sqlite_path}?mode=rw", uri=True)
    except sqlite3.Error:
        return None
    try:
        rows = conn.execute(f'SELECT version_num FROM "{table}"').fetchall()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return {str(row[0]) for row in rows}


def _postgres_heads(database_url: str, service: str, table: str) -> set[str] | None:
    import psycopg

    from atrium.core.db import postgres_conninfo

    try:
        with psycopg.connect(postgres_conninfo(database_url), connect_timeout=10) as conn:
            rows = conn.execute(f'SELECT version_num FROM "{service}"."{table}"').fetchall()
    except psycopg.Error:
        return None
    return {str(row[0]) for row in rows}


def up_to_date(service: str, database_url: str | None, sqlite_path: Path) -> bool:
    """Whether `service`'s database records exactly this code's heads: nothing to migrate, and
    nothing written by a newer version."""
    return recorded_heads(service, database_url, sqlite_path) == set(code_heads(service))
