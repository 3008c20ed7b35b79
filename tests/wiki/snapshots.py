"""Wikis that take seconds to build through the API (the reference pages, a journal, uploads),
built once per worker, backend and kind, then restored for each test from a snapshot.

A snapshot holds the databases (SQLite files, or each PostgreSQL table's rows in COPY's binary form
and the sequences' positions, for the wiki's and core's schemas) and the uploaded files. Restoring
one costs milliseconds; the build it replaces went through every edit's parse and save.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from tests.conftest import SERVICES, copy_sqlite_templates, once_per_session
from tests.wiki.conftest import WikiHarness, wiki_harness

# What a snapshot's build does, with a client of its own.
Build = Callable[[WikiHarness, httpx.AsyncClient], Awaitable[Any]]

_SCHEMAS = ["wiki", "core"]
# Uploads and their archive, under the data directory (`Site.files_dir`).
FILES = "wiki-files"


@dataclass
class Snapshot:
    bot_password: str
    root: Path  # the SQLite files and the uploads
    tables: list[tuple[str, bytes]] = field(default_factory=list)
    sequences: list[tuple[str, int, bool]] = field(default_factory=list)


_snapshots: dict[str, Snapshot] = {}


def _capture(harness: WikiHarness, root: Path) -> Snapshot:
    snapshot = Snapshot(harness.bot_password, root)
    root.mkdir()
    files = harness.settings.data_dir / FILES
    if files.is_dir():
        shutil.copytree(files, root / FILES)
    url = harness.settings.database_url
    if url is None:
        for service in SERVICES:
            # The backup API: a consistent copy while the app holds the database open (WAL).
            source = sqlite3.connect(harness.settings.sqlite_path(service))
            target = sqlite3.connect(root / f"{service}.sqlite3")
            with target:
                source.backup(target)
            source.close()
            target.close()
        return snapshot
    with psycopg.connect(url, autocommit=True) as conn:
        names = conn.execute(
            "SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables"
            " WHERE schemaname = ANY(%s) AND tablename NOT LIKE 'alembic_version%%'",
            (_SCHEMAS,),
        ).fetchall()
        for (name,) in names:
            with conn.cursor().copy(f"COPY {name} TO STDOUT (FORMAT BINARY)") as copy:
                snapshot.tables.append((name, b"".join(bytes(chunk) for chunk in copy)))
        snapshot.sequences = [
            (name, int(value), True)
            for name, value in conn.execute(
                "SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename), last_value"
                " FROM pg_sequences WHERE schemaname = ANY(%s) AND last_value IS NOT NULL",
                (_SCHEMAS,),
            ).fetchall()
        ]
    return snapshot


def _restore(snapshot: Snapshot, data_dir: Path, database_url: str | None) -> None:
    if (snapshot.root / FILES).is_dir():
        shutil.copytree(snapshot.root / FILES, data_dir / FILES)
    if database_url is None:
        for service in SERVICES:
            shutil.copyfile(snapshot.root / f"{service}.sqlite3", data_dir / f"{service}.sqlite3")
        return
    # The database is empty (the `database_url` fixture emptied it) with its sequences restarted.
    with psycopg.connect(database_url, autocommit=True) as conn, conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        for name, rows in snapshot.tables:
            with conn.cursor().copy(f"COPY {name} FROM STDIN (FORMAT BINARY)") as copy:
                copy.write(rows)
        for name, value, called in snapshot.sequences:
            conn.execute("SELECT setval(%s, %s, %s)", (name, value, called))


@contextlib.asynccontextmanager
async def wiki_from_snapshot(
    name: str,
    build: Build | None,
    data_dir: Path,
    database_url: str | None,
    sqlite_templates: Path,
    cache: Path,
) -> AsyncIterator[WikiHarness]:
    """The wiki harness over what `build` made: built through the API the first time on each
    worker and backend (its time not counted in the set-up budget), then restored from the
    snapshot taken then. `build=None`: the plain wiki (as the `wiki` fixture makes it), for a
    module whose other tests need the seeded one. `cache`: the worker's own directory."""
    key = f"{name}-{'sqlite' if database_url is None else 'postgres'}"
    snapshot = _snapshots.get(key) if build is not None else None
    if snapshot is not None:
        _restore(snapshot, data_dir, database_url)
    elif database_url is None:
        copy_sqlite_templates(sqlite_templates, data_dir)
    bot_password = snapshot.bot_password if snapshot is not None else None
    async with wiki_harness(data_dir, database_url, bot_password) as wiki:
        if build is not None and snapshot is None:
            started = time.perf_counter()
            async with wiki.client() as client:
                await build(wiki, client)
            _snapshots[key] = _capture(wiki, cache / f"wiki-snapshot-{key}")
            once_per_session(time.perf_counter() - started)
        yield wiki


def snapshot_wiki(name: str, build: Build, marker: str) -> Any:
    """A module's `wiki` fixture: the wiki `build` makes, restored from the snapshot `name`
    after its first build, for a test that asks for the fixture `marker`; the plain wiki for
    the module's other tests."""

    @pytest.fixture
    async def wiki(
        request: pytest.FixtureRequest,
        data_dir: Path,
        database_url: str | None,
        sqlite_templates: Path,
        tmp_path_factory: pytest.TempPathFactory,
    ) -> AsyncIterator[WikiHarness]:
        chosen = build if marker in request.fixturenames else None
        cache = tmp_path_factory.getbasetemp()
        async with wiki_from_snapshot(
            name, chosen, data_dir, database_url, sqlite_templates, cache
        ) as harness:
            yield harness

    return wiki
