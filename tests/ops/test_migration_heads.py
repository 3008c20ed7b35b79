"""The migration heads read without Alembic, and `atrium serve`'s choice to skip Alembic with them.

A server whose databases record this code's heads starts without loading Alembic; a stale one
(data of an earlier version), a new one or one a newer version wrote still goes through Alembic,
which backs up and migrates, or refuses.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from click.testing import CliRunner

from atrium import cli
from atrium.core import data_lock, migrations
from atrium.ops import migration_heads
from atrium.ops.migration_heads import recorded_heads, up_to_date
from tests.conftest import WORKSPACE_SERVICES, copy_sqlite_templates, free_port


@pytest.mark.parametrize("service", WORKSPACE_SERVICES)
def test_heads_read_as_text_are_alembics(service: str) -> None:
    assert set(migration_heads.code_heads(service)) == migrations.code_heads(service)


def test_current_databases_are_up_to_date(
    data_dir: Path, database_url: str | None, sqlite_templates: Path
) -> None:
    copy_sqlite_templates(sqlite_templates, data_dir, WORKSPACE_SERVICES)
    # The PostgreSQL test database holds the chat's schema and core's.
    services = WORKSPACE_SERVICES if database_url is None else ("chat", "core")
    for service in services:
        path = data_dir / f"{service}.sqlite3"
        assert recorded_heads(service, database_url, path) == migrations.code_heads(service)
        assert up_to_date(service, database_url, path)
        assert not migrations.pending(service, database_url, path)


def test_missing_or_never_migrated_databases_are_not_up_to_date(
    data_dir: Path, database_url: str | None
) -> None:
    missing = data_dir / "chat.sqlite3"
    if database_url is None:
        assert recorded_heads("chat", None, missing) is None
        assert not up_to_date("chat", None, missing)
        assert not missing.exists()  # looking does not create it
        sqlite3.connect(missing).close()  # an empty file: no version table
        assert recorded_heads("chat", None, missing) is None
        assert not up_to_date("chat", None, missing)
        return
    # On PostgreSQL: the server's own maintenance database, which no test migrates (the worker's
    # test database may hold every service's schema, by whichever tests ran before), and a
    # database that does not exist.
    server = database_url.rsplit("/", 1)[0]
    for url in (f"{server}/postgres", f"{server}/atrium_never_created"):
        for service in WORKSPACE_SERVICES:
            assert recorded_heads(service, url, missing) is None, (url, service)
            assert not up_to_date(service, url, missing)


def _set_chat_revision(data_dir: Path, revision: str) -> None:
    conn = sqlite3.connect(data_dir / "chat.sqlite3")
    with conn:
        conn.execute("UPDATE alembic_version_chat SET version_num = ?", (revision,))
    conn.close()


@pytest.mark.parametrize("revision", ["0011", "9999_from_the_future"])
def test_other_revisions_are_not_up_to_date(
    data_dir: Path, sqlite_templates: Path, revision: str
) -> None:
    copy_sqlite_templates(sqlite_templates, data_dir)
    _set_chat_revision(data_dir, revision)
    assert recorded_heads("chat", None, data_dir / "chat.sqlite3") == {revision}
    assert not up_to_date("chat", None, data_dir / "chat.sqlite3")
    assert up_to_date("wiki", None, data_dir / "wiki.sqlite3")


class Exec(Exception):
    """Where `atrium serve` would replace itself with the supervisor."""


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Iterator[Callable[[], Any]]:
    """`atrium serve` on `data_dir`, in-process up to its exec; each call gives the CLI's result
    and records the services Alembic migrated in `serve.migrated`."""
    migrated: list[str] = []
    locks: list[int] = []
    real_upgrade, real_acquire = migrations.upgrade, data_lock.acquire

    def upgrade(service: str, database_url: str | None, sqlite_path: Path) -> None:
        migrated.append(service)
        real_upgrade(service, database_url, sqlite_path)

    def acquire(path: Path) -> int:
        locks.append(real_acquire(path))
        return locks[-1]

    def execv(path: str, argv: list[str]) -> None:
        raise Exec

    for name in [n for n in os.environ if n.startswith("ATRIUM_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("ATRIUM_DATA_DIR", str(data_dir))
    # `serve` sets these for the supervisor; monkeypatch puts them back afterwards.
    for name, value in {"HOST": "127.0.0.1", "PORT": "8080", "MIGRATE_ON_START": "1"}.items():
        monkeypatch.setenv(f"ATRIUM_{name}", value)
    monkeypatch.setattr(migrations, "upgrade", upgrade)
    monkeypatch.setattr(data_lock, "acquire", acquire)
    monkeypatch.setattr(os, "execv", execv)

    def run() -> Any:
        return CliRunner().invoke(cli.main, ["serve", "--port", str(free_port())])

    run.migrated = migrated  # type: ignore[attr-defined]
    yield run
    for fd in locks:
        data_lock.release(fd)


def test_serve_skips_alembic_on_current_data(
    serve: Any, monkeypatch: pytest.MonkeyPatch, data_dir: Path, sqlite_templates: Path
) -> None:
    copy_sqlite_templates(sqlite_templates, data_dir, WORKSPACE_SERVICES)

    def no_alembic(*args: Any) -> bool:
        raise AssertionError("Alembic consulted for current data")

    monkeypatch.setattr(migrations, "pending", no_alembic)
    result = serve()
    assert isinstance(result.exception, Exec), result.output
    assert serve.migrated == []
    assert "Migrations to apply" not in result.output


def test_serve_migrates_data_of_an_earlier_revision(
    serve: Any, data_dir: Path, sqlite_templates: Path
) -> None:
    copy_sqlite_templates(sqlite_templates, data_dir, WORKSPACE_SERVICES)
    # A chat database really at the revision before the head, as an earlier version left it.
    chat = data_dir / "chat.sqlite3"
    chat.unlink()
    config = migrations.alembic_config("chat", None, chat)
    (head,) = migrations.code_heads("chat")
    earlier = ScriptDirectory.from_config(config).get_revision(head).down_revision
    assert isinstance(earlier, str)
    command.upgrade(config, earlier)
    assert recorded_heads("chat", None, chat) == {earlier}

    result = serve()
    assert isinstance(result.exception, Exec), result.output
    assert "Migrations to apply (chat): backing up first." in result.output
    assert len(list((data_dir / "backups").glob("pre-upgrade-*"))) == 1
    assert serve.migrated == ["core", "chat", "wiki", "bridge"]
    assert all(up_to_date(s, None, data_dir / f"{s}.sqlite3") for s in WORKSPACE_SERVICES)


def test_serve_refuses_data_of_a_newer_version(
    serve: Any, data_dir: Path, sqlite_templates: Path
) -> None:
    copy_sqlite_templates(sqlite_templates, data_dir, WORKSPACE_SERVICES)
    _set_chat_revision(data_dir, "9999_from_the_future")
    result = serve()
    assert result.exit_code == 1
    assert "revision 9999_from_the_future, which this version of Atrium does not know" in (
        result.output
    )
    assert serve.migrated == []
    assert recorded_heads("chat", None, data_dir / "chat.sqlite3") == {"9999_from_the_future"}
