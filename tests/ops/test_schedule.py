"""Scheduled backups: taken when due, pruned to the number kept, one worker at a time."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from atrium.ops.manifest import read_manifest
from atrium.ops.restore import verify_backup
from atrium.ops.schedule import PARTIAL, PREFIX, ScheduledBackups, scheduled
from atrium.server import create_app
from atrium.settings import Settings
from tests.conftest import copy_sqlite_templates


def make_settings(
    data_dir: Path, database_url: str | None, templates: Path, folder: Path, **changes: object
) -> Settings:
    if database_url is None:
        copy_sqlite_templates(templates, data_dir)
    return Settings(
        data_dir=data_dir, database_url=database_url, backup_dir=folder, migrate_on_start=False
    ).with_(**changes)


def test_taken_when_due_and_pruned(
    data_dir: Path, database_url: str | None, sqlite_templates: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "backups"
    schedule = ScheduledBackups(
        make_settings(data_dir, database_url, sqlite_templates, folder, backup_keep=2)
    )
    try:
        first = schedule.run_once()
        assert first is not None and scheduled(folder) == [first]
        verify_backup(first)
        assert read_manifest(first)["revisions"]["chat"]
        # Within the interval (24 h by default): nothing more.
        assert schedule.run_once() is None
        schedule.interval = 0
        (folder / f"{PARTIAL}{PREFIX}crashed").mkdir()  # left by a crash mid-backup
        taken = [schedule.run_once(), schedule.run_once()]
        assert scheduled(folder) == taken  # the oldest went, the newest two stay
        assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in taken if p)
    finally:
        schedule.close()


def test_one_worker_takes_them_in_scale_out_mode(
    data_dir: Path, database_url: str | None, sqlite_templates: Path, tmp_path: Path
) -> None:
    settings = make_settings(data_dir, database_url, sqlite_templates, tmp_path / "backups")
    first, second = ScheduledBackups(settings), ScheduledBackups(settings)
    try:
        assert first.holds_turn()
        # Embedded: one process, nothing to share. Scale-out: the advisory lock is taken.
        assert second.holds_turn() is (database_url is None)
        first.close()  # a worker that stops (or dies) lets another take over
        assert second.holds_turn()
    finally:
        first.close()
        second.close()


@pytest.mark.anyio
async def test_the_server_takes_them_by_itself(
    data_dir: Path, sqlite_templates: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "backups"
    settings = make_settings(data_dir, None, sqlite_templates, folder)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        schedule = app.state.services["backups"].state["schedule"]
        deadline = time.monotonic() + 30
        while schedule.taken == 0:
            assert schedule.last_error is None, schedule.last_error
            assert time.monotonic() < deadline, "no scheduled backup in 30 s"
            await asyncio.sleep(0.05)
    assert len(scheduled(folder)) == 1
    verify_backup(scheduled(folder)[0])
