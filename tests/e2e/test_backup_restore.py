"""`atrium backup` under write load, then `atrium restore` into an empty target and a server on it.

A real server takes concurrent chat sends and wiki edits (the crash test's load); `atrium backup`
runs as its own process meanwhile. Every write acknowledged before the backup started must be in
the restored deployment, read back through both APIs, and the restored databases must pass their
own integrity checks. The refusals are checked on the way: a target with data, and (embedded) a
data directory whose server holds the lock.
"""

from __future__ import annotations

import configparser
import random
import stat
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from atrium.core import migrations
from tests.conftest import PostgresServer, _admin_connect, _postgres_url
from tests.e2e.seed import ChatUser, create_chat_realm, create_wiki_users, prepare_data_dir, zuliprc
from tests.e2e.server import atrium_env, running_server
from tests.e2e.test_crash_durability import (
    ADMIN,
    ADMIN_PASSWORD,
    OWNER,
    READY,
    STREAM,
    Acknowledged,
    Org,
    _chat_client,
    check_messages,
    check_postgres,
    check_revisions,
    check_sqlite,
    load,
)

pytestmark = pytest.mark.e2e

# Writes acknowledged before the backup starts, at least: a backup of nothing proves nothing.
MIN_MESSAGES, MIN_REVISIONS = 30, 6


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atrium.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(
    params=[pytest.param("sqlite"), pytest.param("postgres", marks=pytest.mark.postgres)]
)
def backend(request: pytest.FixtureRequest) -> Iterator[tuple[str | None, str | None]]:
    """The source database and an empty one to restore into (both None for SQLite)."""
    if request.param == "sqlite":
        yield None, None
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    source = server.new_database("chat")
    # Nothing migrated: as empty as a database an operator creates for the restore.
    name = f"atrium_t_{uuid.uuid4().hex[:12]}"
    with _admin_connect() as conn:  # type: ignore[attr-defined]
        conn.execute(f'CREATE DATABASE "{name}"')
    server.created.append(name)
    target = _postgres_url(name)
    yield source, target
    server.drop(target)
    server.drop(source)


def make_org(data_dir: Path, database_url: str | None) -> Org:
    settings = prepare_data_dir(data_dir, database_url, None)
    if database_url is not None:
        migrations.upgrade("wiki", database_url, Path("/nonexistent"))  # chat's template has none
    create_chat_realm(settings, "Backup Test", [ChatUser(OWNER, "Kim Owner", role="owner")])
    create_wiki_users(settings, [(ADMIN, ADMIN_PASSWORD, ["sysop"])])
    config = configparser.ConfigParser()
    config.read_string(zuliprc(settings, OWNER, settings.base_url))
    env = atrium_env(data_dir, database_url, ATRIUM_RATE_LIMITS="0")
    return Org(env, data_dir, database_url, config["api"]["key"])


def test_backup_under_load_restores_every_acknowledged_write(
    tmp_path: Path, backend: tuple[str | None, str | None]
) -> None:
    source_url, target_url = backend
    data_dir = tmp_path / "source"
    data_dir.mkdir(mode=0o700)
    org = make_org(data_dir, source_url)
    dest = tmp_path / "backup"
    acked = Acknowledged()
    with running_server(org.env, READY) as server:
        with _chat_client(server.url, org) as client:
            resp = client.post(
                "/api/v1/users/me/subscriptions",
                data={"subscriptions": orjson.dumps([{"name": STREAM}]).decode()},
            )
            assert resp.json()["result"] == "success", resp.text
            upload = client.post(
                "/api/v1/user_uploads", files={"file": ("notes.txt", b"uploaded bytes\n")}
            ).json()
            assert upload["result"] == "success", upload
        with load(server.url, org, 0, acked):
            deadline = time.monotonic() + 120
            while len(acked.messages) < MIN_MESSAGES or len(acked.revisions) < MIN_REVISIONS:
                assert not acked.errors, acked.errors
                assert time.monotonic() < deadline, "the load made no progress in 120 s"
                time.sleep(0.05)
            with acked.lock:
                before = Acknowledged(dict(acked.messages), dict(acked.revisions))
            taken = cli(org.env, "backup", str(dest))
            assert taken.returncode == 0, taken.stderr
            written_during = len(acked.messages) - len(before.messages)
        assert written_during > 0, "no write went on while the backup ran"
        assert "backup written to" in taken.stderr
        if source_url is None:
            # A server holds the data directory: restore refuses, and names it.
            refused = cli(org.env, "restore", str(dest), "--force")
            assert refused.returncode == 1
            assert f"process {server.process.pid} holds" in refused.stderr

    assert stat.S_IMODE(dest.stat().st_mode) == 0o700
    files = [p for p in dest.rglob("*") if p.is_file()]
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)
    verified = cli(org.env, "restore", "--verify", str(dest))
    assert verified.returncode == 0, verified.stderr

    # A target that already has data is refused without --force.
    refused = cli(org.env, "restore", str(dest))
    assert refused.returncode == 1 and "is not empty" in refused.stderr, refused.stderr

    target_dir = tmp_path / "restored"
    target_dir.mkdir(mode=0o700)
    target_env = atrium_env(target_dir, target_url, ATRIUM_RATE_LIMITS="0")
    restored = cli(target_env, "restore", str(dest))
    assert restored.returncode == 0, restored.stderr
    if target_url is None:
        check_sqlite(target_dir)
    else:
        check_postgres(target_url)
    target = Org(target_env, target_dir, target_url, org.api_key)
    with running_server(target_env, READY) as server:
        check_messages(server.url, target, before, random.Random(0))
        check_revisions(server.url, before)
        with _chat_client(server.url, target) as client:
            got = client.get(upload["uri"])
            assert got.status_code == 200 and got.content == b"uploaded bytes\n"
