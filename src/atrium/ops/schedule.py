"""Backups the server takes by itself: every ATRIUM_BACKUP_INTERVAL_HOURS, and before migrations.

Scheduled backups go into ATRIUM_BACKUP_DIR as `atrium-backup-<UTC time>` folders, the newest
ATRIUM_BACKUP_KEEP kept. A backup is written under a `.partial-` name and renamed when complete,
so a crash mid-way leaves nothing that looks like a backup. In the scale-out mode every worker runs
the loop, and the one holding a PostgreSQL advisory lock (on a connection of its own, released if
the worker dies) takes the backups.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import shutil
import time
from pathlib import Path
from typing import Any

from atrium.core.service import Service
from atrium.ops.backup import Progress, backup, quiet
from atrium.settings import Settings

log = logging.getLogger("atrium.backups")

PREFIX = "atrium-backup-"
PARTIAL = ".partial-"
# How often a worker looks whether a backup is due (and retries the lock in scale-out mode).
CHECK_SECONDS = 60.0
# The advisory lock's key: one number for "scheduled backups" in this database.
ADVISORY_KEY = 0x4174726D  # "Atrm"


def _stamp() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%fZ")


def take(settings: Settings, folder: Path, prefix: str, progress: Progress = quiet) -> Path:
    """One backup into `folder` under `prefix` and the time; written aside, then renamed."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    name = prefix + _stamp()
    partial = folder / (PARTIAL + name)
    try:
        backup(settings, partial, progress)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    final = folder / name
    partial.rename(final)
    return final


def pre_upgrade_backup(settings: Settings, progress: Progress = quiet) -> Path:
    return take(settings, settings.pre_upgrade_backup_dir, "pre-upgrade-", progress)


def scheduled(folder: Path) -> list[Path]:
    """The complete scheduled backups in `folder`, oldest first (their names sort by time)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir() and p.name.startswith(PREFIX))


def prune(folder: Path, keep: int) -> list[Path]:
    """Remove all but the newest `keep` scheduled backups, and partial ones left by a crash;
    what was removed."""
    removed = scheduled(folder)[:-keep] if keep > 0 else []
    removed += [p for p in folder.iterdir() if p.name.startswith(PARTIAL + PREFIX)]
    for path in removed:
        shutil.rmtree(path, ignore_errors=True)
    return removed


class ScheduledBackups:
    """The loop one process runs; `run_once` is one look (and a backup when one is due)."""

    def __init__(self, settings: Settings) -> None:
        assert settings.backup_dir is not None
        self.settings = settings
        self.folder = settings.backup_dir
        self.interval = settings.backup_interval_hours * 3600
        self._lock_conn: Any = None
        self.taken = 0
        self.last_error: str | None = None

    def holds_turn(self) -> bool:
        """Embedded: always (one process). Scale-out: whether this worker holds the lock."""
        if not self.settings.is_postgres:
            return True
        import psycopg

        from atrium.core.db import postgres_conninfo

        if self._lock_conn is not None and not self._lock_conn.closed:
            return True
        assert self.settings.database_url is not None
        conn = psycopg.connect(
            postgres_conninfo(self.settings.database_url), autocommit=True, connect_timeout=10
        )
        row = conn.execute("SELECT pg_try_advisory_lock(%s)", (ADVISORY_KEY,)).fetchone()
        if row is not None and row[0]:
            self._lock_conn = conn
            return True
        conn.close()
        return False

    def due(self) -> bool:
        done = scheduled(self.folder)
        if not done:
            return True
        age = time.time() - done[-1].stat().st_mtime
        return age >= self.interval

    def run_once(self) -> Path | None:
        if not self.holds_turn() or not self.due():
            return None
        path = take(self.settings, self.folder, PREFIX)
        prune(self.folder, self.settings.backup_keep)
        self.taken += 1
        log.info("scheduled backup written to %s", path)
        return path

    def close(self) -> None:
        if self._lock_conn is not None:
            with contextlib.suppress(Exception):
                self._lock_conn.close()
            self._lock_conn = None


def backup_service(settings: Settings) -> Service:
    """The scheduled backups as a part of the app: a task started and stopped with it."""
    schedule = ScheduledBackups(settings)
    tasks: list[asyncio.Task[None]] = []

    async def loop() -> None:
        while True:
            try:
                # The copy runs beside the event loop: it waits on the disk, not the CPU.
                await asyncio.to_thread(schedule.run_once)
                schedule.last_error = None
            except Exception as exc:
                schedule.last_error = str(exc)
                log.exception("scheduled backup failed")
            await asyncio.sleep(min(CHECK_SECONDS, schedule.interval))

    async def startup() -> None:
        tasks.append(asyncio.create_task(loop()))

    async def shutdown() -> None:
        for task in tasks:
            task.cancel()
        schedule.close()

    service = Service("backups", [], [startup], [shutdown])
    service.state["schedule"] = schedule
    return service
