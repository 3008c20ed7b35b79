"""Backups in-process: what `atrium backup` and `atrium restore` refuse, and what they notice.

The end-to-end proof under write load is tests/e2e/test_backup_restore.py; these are the edges.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from atrium.core import migrations
from atrium.ops.backup import backup
from atrium.ops.manifest import DATABASES, FILES, BackupError, read_manifest
from atrium.ops.restore import restore, verify_backup
from atrium.settings import Settings
from tests.conftest import copy_sqlite_templates


@pytest.fixture
def settings(data_dir: Path, database_url: str | None, sqlite_templates: Path) -> Settings:
    if database_url is None:
        copy_sqlite_templates(sqlite_templates, data_dir)
    (data_dir / "secret_key").write_text("k" * 64)
    (data_dir / "uploads").mkdir()
    (data_dir / "uploads" / "ab").write_bytes(b"upload")
    (data_dir / "server.log").write_text("not data")
    return Settings(data_dir=data_dir, database_url=database_url, migrate_on_start=False)


def test_backup_holds_databases_files_and_manifest(settings: Settings, tmp_path: Path) -> None:
    dest = tmp_path / "b"
    lines: list[str] = []
    manifest = backup(settings, dest, lines.append)
    assert lines[-1] == f"backup written to {dest}"
    assert manifest == read_manifest(dest)
    assert manifest["revisions"]["chat"] and manifest["atrium_version"]
    names = set(manifest["files"])
    assert {f"{FILES}/secret_key", f"{FILES}/uploads/ab"} <= names
    assert not any(name.endswith(".log") for name in names)
    if settings.is_postgres:
        assert f"{DATABASES}/postgres.dump" in names
        assert manifest["postgres"]["pg_dump_version"].startswith("pg_dump (PostgreSQL)")
    else:
        assert {f"{DATABASES}/{s}.sqlite3" for s in ("core", "chat", "wiki")} <= names
    assert stat.S_IMODE(dest.stat().st_mode) == 0o700
    verify_backup(dest)


def test_destination_with_content_is_refused(settings: Settings, tmp_path: Path) -> None:
    dest = tmp_path / "b"
    dest.mkdir()
    (dest / "other").write_text("x")
    with pytest.raises(BackupError, match="not an empty folder"):
        backup(settings, dest)


def test_changed_or_added_file_fails_verify_and_restore(settings: Settings, tmp_path: Path) -> None:
    dest = tmp_path / "b"
    backup(settings, dest)
    (dest / FILES / "secret_key").write_text("j" * 64)
    (dest / FILES / "planted").write_text("x")
    with pytest.raises(BackupError, match="secret_key: checksum differs; files/planted: not in"):
        verify_backup(dest)
    target = settings.with_(data_dir=tmp_path / "target")
    with pytest.raises(BackupError, match="does not match its manifest"):
        restore(target, dest)
    assert not (tmp_path / "target" / "secret_key").exists()


def test_restore_refuses_a_backup_from_a_newer_version(settings: Settings, tmp_path: Path) -> None:
    dest = tmp_path / "b"
    backup(settings, dest)
    manifest_path = dest / "manifest.json"
    (head,) = migrations.code_heads("chat")
    text = manifest_path.read_text().replace(f'"{head}"', '"9999_future"', 1)
    manifest_path.write_text(text)
    target = settings.with_(data_dir=tmp_path / "target")
    with pytest.raises(BackupError, match="revision 9999_future, which this version"):
        restore(target, dest)


def test_pg_dump_older_than_the_server_is_refused(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not settings.is_postgres:
        pytest.skip("pg_dump is the scale-out mode's")
    tools = tmp_path / "bin"
    tools.mkdir()
    fake = tools / "pg_dump"
    fake.write_text("#!/bin/sh\necho 'pg_dump (PostgreSQL) 9.6.24'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(BackupError, match=r"9\.6\.24 is older than the server"):
        backup(settings, tmp_path / "b")
