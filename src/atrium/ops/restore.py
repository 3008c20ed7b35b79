"""`atrium restore SRC`: a backup back into an empty data directory or database.

The checksums are checked before anything is written. In the embedded mode the restore holds the
data directory's lock, so it refuses while a server runs there and no server starts on a half
restored directory. A target that already has data is refused unless `force` is given, which
replaces the databases and the files the backup holds. The pending migrations are applied last,
so a backup taken by an older version comes up to date. `verify_backup` checks a backup without
restoring it: checksums, then the databases' own integrity checks.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from atrium.core import data_lock, migrations
from atrium.core.db import postgres_conninfo
from atrium.ops.backup import Progress, pg_tool, quiet
from atrium.ops.manifest import (
    DATABASES,
    FILES,
    POSTGRES_DUMP,
    SERVICES,
    BackupError,
    read_manifest,
    verify_checksums,
    walk_files,
)
from atrium.settings import Settings


def checked_manifest(src: Path) -> dict[str, Any]:
    manifest = read_manifest(src)
    problems = verify_checksums(src, manifest)
    if problems:
        shown = "; ".join(problems[:5]) + ("; …" if len(problems) > 5 else "")
        raise BackupError(f"the backup at {src} does not match its manifest: {shown}")
    return manifest


def check_known_revisions(manifest: dict[str, Any]) -> None:
    """A backup of a newer version cannot be brought up by this one."""
    for service, heads in manifest.get("revisions", {}).items():
        unknown = set(heads) - migrations.known_revisions(service)
        if unknown:
            raise BackupError(
                f"the backup's {service} database is at revision {', '.join(sorted(unknown))}, "
                f"which this version of Atrium does not know (the backup is from "
                f"{manifest.get('atrium_version')}): restore it with that version or newer"
            )


def sqlite_problems(path: Path) -> list[str]:
    """SQLite's integrity and foreign-key checks of one database file."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check") if row[0] != "ok"]
        problems += [f"foreign key: {row}" for row in conn.execute("PRAGMA foreign_key_check")]
    finally:
        conn.close()
    return [f"{path.name}: {problem}" for problem in problems]


def verify_backup(src: Path, progress: Progress = quiet) -> None:
    """Checksums, then each database's integrity; raises BackupError with what is wrong."""
    manifest = checked_manifest(src)
    progress(f"checksums: {len(manifest['files'])} files match")
    if manifest["mode"] == "embedded":
        problems = []
        for path in sorted((src / DATABASES).glob("*.sqlite3")):
            problems += sqlite_problems(path)
            progress(f"{path.name}: integrity checked")
        if problems:
            raise BackupError("; ".join(problems[:5]))
    else:
        # pg_restore reads the whole archive's table of contents: a damaged dump fails here.
        listing = subprocess.run(
            [pg_tool("pg_restore"), "--list", str(src / DATABASES / POSTGRES_DUMP)],
            capture_output=True,
            text=True,
        )
        if listing.returncode != 0:
            raise BackupError(f"pg_restore cannot read the dump: {listing.stderr.strip()}")
        progress("database dump: readable by pg_restore")


def restore(settings: Settings, src: Path, force: bool = False, progress: Progress = quiet) -> None:
    manifest = checked_manifest(src)
    progress(f"checksums: {len(manifest['files'])} files match")
    check_known_revisions(manifest)
    wanted = "scale-out" if settings.is_postgres else "embedded"
    if manifest["mode"] != wanted:
        raise BackupError(
            f"the backup is of the {manifest['mode']} mode and this deployment is {wanted}: "
            "restore it where ATRIUM_DATABASE_URL is "
            + ("set" if manifest["mode"] == "scale-out" else "unset")
        )
    lock_fd = None
    if not settings.is_postgres:
        try:
            lock_fd = data_lock.acquire(settings.data_dir)
        except data_lock.DataDirLocked as locked:
            raise BackupError(f"{locked}; stop the server before restoring") from None
    try:
        if not force:
            refuse_non_empty(settings, src)
        if settings.is_postgres:
            assert settings.database_url is not None
            restore_postgres(settings.database_url, src, progress)
        else:
            restore_sqlite(settings, src, progress)
        restore_files(settings.data_dir, src / FILES, progress)
        for service in manifest["revisions"]:
            migrations.upgrade(service, settings.database_url, settings.sqlite_path(service))
        progress("migrations applied")
        if not settings.is_postgres:
            problems = []
            for service in manifest["revisions"]:
                problems += sqlite_problems(settings.sqlite_path(service))
            if problems:
                raise BackupError(
                    "the restored databases fail their checks: " + "; ".join(problems)
                )
            progress("restored databases: integrity checked")
    finally:
        if lock_fd is not None:
            data_lock.release(lock_fd)


def _sqlite_files(data_dir: Path, service: str) -> list[Path]:
    base = data_dir / f"{service}.sqlite3"
    return [base, *(base.with_name(base.name + suffix) for suffix in ("-wal", "-shm", "-journal"))]


def refuse_non_empty(settings: Settings, src: Path) -> None:
    """Before anything is written: the target must hold none of what the backup brings."""
    if settings.is_postgres:
        assert settings.database_url is not None
        present = (
            ["the chat, wiki or core schemas"] if _postgres_tables(settings.database_url) else []
        )
    else:
        present = [f"{s}.sqlite3" for s in SERVICES if settings.sqlite_path(s).exists()]
    present += _file_clashes(settings.data_dir, src / FILES)
    if present:
        where = "the database" if settings.is_postgres else str(settings.data_dir)
        raise BackupError(
            f"{where} is not empty (it has {', '.join(present)}); restore into an empty one, or "
            "give --force to replace what the backup holds"
        )


def _file_clashes(data_dir: Path, files: Path) -> list[str]:
    tops = {path.relative_to(files).parts[0] for path in walk_files(files)}
    return sorted(top for top in tops if (data_dir / top).exists())


def restore_sqlite(settings: Settings, src: Path, progress: Progress) -> None:
    for service in SERVICES:
        for path in _sqlite_files(settings.data_dir, service):
            path.unlink(missing_ok=True)
    for copy in sorted((src / DATABASES).glob("*.sqlite3")):
        target = settings.data_dir / copy.name
        shutil.copyfile(copy, target)
        target.chmod(0o600)
        progress(f"{copy.stem} database restored")


def _postgres_tables(database_url: str) -> int:
    import psycopg

    with psycopg.connect(postgres_conninfo(database_url), autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = ANY(%s)", (list(SERVICES),)
        ).fetchone()
    return int(row[0]) if row else 0


def restore_postgres(database_url: str, src: Path, progress: Progress) -> None:
    import psycopg

    with psycopg.connect(postgres_conninfo(database_url), autocommit=True) as conn:
        for service in SERVICES:
            conn.execute(f'DROP SCHEMA IF EXISTS "{service}" CASCADE')
    progress("pg_restore…")
    result = subprocess.run(
        [
            pg_tool("pg_restore"),
            "--no-owner",
            "--no-privileges",
            "--exit-on-error",
            "--dbname",
            postgres_conninfo(database_url),
            str(src / DATABASES / POSTGRES_DUMP),
        ],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise BackupError(f"pg_restore failed: {result.stderr.strip()}")
    progress("database restored")


def restore_files(data_dir: Path, files: Path, progress: Progress) -> None:
    """Put the backup's files in place; what they replace (under --force) goes first."""
    sources = list(walk_files(files))
    for top in _file_clashes(data_dir, files):
        target = data_dir / top
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        else:
            target.unlink()
    for path in sources:
        out = data_dir / path.relative_to(files)
        out.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        shutil.copyfile(path, out)
        out.chmod(0o600)
    progress(f"files restored: {len(sources)}")
