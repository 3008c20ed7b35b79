"""`atrium backup DEST`: a consistent copy of a running deployment, writes going on meanwhile.

The embedded mode copies each SQLite database with SQLite's online backup API in one step: the
copy reads one snapshot under a read lock, which in WAL mode never holds the server's writer up.
The scale-out mode runs `pg_dump` over the service schemas, itself one snapshot; a `pg_dump`
older than the server is refused (it could not read the newer catalog faithfully). Either way the
data directory's other files follow (uploads, wiki files, secret keys), then a manifest with the
versions and every file's checksum. The folder is 0700 and its files 0600: it holds API keys,
password hashes and the secret keys.
"""

from __future__ import annotations

import datetime
import os
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from atrium.core import migrations
from atrium.core.data_lock import LOCK_NAME
from atrium.core.db import postgres_conninfo
from atrium.ops.manifest import (
    DATABASES,
    FILES,
    FORMAT,
    POSTGRES_DUMP,
    SERVICES,
    BackupError,
    sha256,
    walk_files,
    write_manifest,
)
from atrium.settings import Settings

Progress = Callable[[str], None]

# Data-directory entries that are not the deployment's data: the databases (copied through their
# own API), SQLite's side files, the server's lock, logs, and the wiki's thumbnail cache (made
# again when asked for).
SKIPPED_SUFFIXES = (".sqlite3", ".sqlite3-wal", ".sqlite3-shm", ".sqlite3-journal", ".log")
SKIPPED_PATHS = (LOCK_NAME, "wiki-files/images/thumb", "backups")


def quiet(_line: str) -> None:
    return None


def atrium_version() -> str:
    try:
        return metadata.version("atrium")
    except metadata.PackageNotFoundError:
        return "unknown"


def prepare_destination(dest: Path) -> None:
    """DEST must be new or an empty folder; it is made 0700."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise BackupError(f"{dest} exists and is not an empty folder; give a new one")
    dest.mkdir(mode=0o700, parents=True, exist_ok=True)
    dest.chmod(0o700)
    for part in (DATABASES, FILES):
        (dest / part).mkdir(mode=0o700)


def backup(settings: Settings, dest: Path, progress: Progress = quiet) -> dict[str, Any]:
    """Write a backup of the deployment `settings` describe into `dest`; its manifest."""
    prepare_destination(dest)
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "atrium_version": atrium_version(),
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "mode": "scale-out" if settings.is_postgres else "embedded",
        "revisions": {},
    }
    if settings.is_postgres:
        assert settings.database_url is not None
        manifest["postgres"] = dump_postgres(settings.database_url, dest, progress)
        for service in SERVICES:
            heads = migrations.database_heads(service, settings.database_url, Path("/nonexistent"))
            if heads is not None:
                manifest["revisions"][service] = sorted(heads)
    else:
        manifest["sqlite_version"] = sqlite3.sqlite_version
        for service in SERVICES:
            source = settings.sqlite_path(service)
            if not source.exists():
                continue
            copy = dest / DATABASES / f"{service}.sqlite3"
            copy_sqlite(source, copy)
            progress(f"{service} database: {_size(copy.stat().st_size)}")
            heads = migrations.database_heads(service, None, copy)
            manifest["revisions"][service] = sorted(heads or ())
    copied, size = copy_files(settings.data_dir, dest / FILES, dest, progress)
    progress(f"files: {copied} ({_size(size)})")
    manifest["files"] = {
        path.relative_to(dest).as_posix(): {"size": path.stat().st_size, "sha256": sha256(path)}
        for path in walk_files(dest)
    }
    write_manifest(dest, manifest)
    progress(f"backup written to {dest}")
    return manifest


def copy_sqlite(source: Path, copy: Path) -> None:
    """SQLite's online backup, all pages in one step: one consistent snapshot (a stepwise copy
    would start over after every write the server makes meanwhile)."""
    src = sqlite3.connect(source, timeout=30)
    try:
        dst = sqlite3.connect(copy)
        try:
            src.backup(dst, pages=-1)
            # One self-contained file: the copy carries the source's WAL mode, under which a
            # mere reader (a verification) would leave -wal and -shm files beside it. The
            # server sets WAL again when it opens the restored database.
            dst.execute("PRAGMA journal_mode=DELETE")
        finally:
            dst.close()
    finally:
        src.close()
    copy.chmod(0o600)


def _skipped(relative: str) -> bool:
    if relative.endswith(SKIPPED_SUFFIXES):
        return True
    return any(relative == p or relative.startswith(p + "/") for p in SKIPPED_PATHS)


def copy_files(data_dir: Path, target: Path, dest: Path, progress: Progress) -> tuple[int, int]:
    """Copy the data directory's files (not the databases) into `target`: count and bytes."""
    copied = size = 0
    dest = dest.resolve()
    for path in walk_files(data_dir):
        if path.resolve().is_relative_to(dest):
            continue  # a backup folder inside the data directory
        relative = path.relative_to(data_dir).as_posix()
        if _skipped(relative):
            continue
        out = target / relative
        out.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            shutil.copyfile(path, out)
        except FileNotFoundError:
            continue  # removed meanwhile (a thumbnail evicted, an upload deleted)
        out.chmod(0o600)
        copied += 1
        size += out.stat().st_size
        if copied % 1000 == 0:
            progress(f"files: {copied} ({_size(size)})…")
    return copied, size


def _major(version_text: str) -> int:
    match = re.search(r"(\d+)(?:\.(\d+))?", version_text)
    if match is None:
        raise BackupError(f"cannot read a PostgreSQL version from {version_text!r}")
    return int(match.group(1))


def pg_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackupError(f"{name} is not installed (Debian: apt-get install postgresql-client)")
    return path


def server_major(database_url: str) -> tuple[int, str]:
    import psycopg

    with psycopg.connect(postgres_conninfo(database_url), autocommit=True) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    assert row is not None
    return _major(str(row[0])), str(row[0])


def tool_major(tool: str) -> tuple[int, str]:
    text = subprocess.run(
        [tool, "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    # "pg_dump (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)": the number after the name.
    return _major(text.split(")", 1)[-1]), text


def dump_postgres(database_url: str, dest: Path, progress: Progress) -> dict[str, str]:
    pg_dump = pg_tool("pg_dump")
    server, server_text = server_major(database_url)
    client, client_text = tool_major(pg_dump)
    if client < server:
        raise BackupError(
            f"{client_text} is older than the server (PostgreSQL {server_text}): it cannot "
            f"dump it faithfully; install the PostgreSQL {server} client tools"
        )
    out = dest / DATABASES / POSTGRES_DUMP
    progress(f"pg_dump of the schemas {', '.join(SERVICES)}…")
    schemas = [f"--schema={service}" for service in SERVICES]
    result = subprocess.run(
        [
            pg_dump,
            "--format=custom",
            "--no-owner",
            "--no-privileges",
            *schemas,
            "--file",
            str(out),
            postgres_conninfo(database_url),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PGCONNECT_TIMEOUT": "10"},
    )
    if result.returncode != 0:
        raise BackupError(f"pg_dump failed: {result.stderr.strip()}")
    out.chmod(0o600)
    progress(f"database dump: {_size(out.stat().st_size)}")
    return {"server_version": server_text, "pg_dump_version": client_text}


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"
