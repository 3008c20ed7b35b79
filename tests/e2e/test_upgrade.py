"""An upgrade as an operator makes one: data written by an earlier version, served by this one.

The earlier version is the code just before the newest migration (exported from git, as the
bench's `--rev` does, and run from `PYTHONPATH`), so the upgrade always applies at least one
migration: its server takes chat sends and wiki edits, then this version's `atrium serve` backs
the data up, migrates it, and every acknowledged write reads back. Data from a version newer than
the code is refused.
"""

from __future__ import annotations

import random
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from tests.conftest import free_port
from tests.e2e.server import atrium, atrium_env, running_server
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
    check_revisions,
    check_sqlite,
    load,
)

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"needs the repository's git history: git {' '.join(args)}: {done.stderr}")
    return done.stdout.strip()


def earlier_source(root: Path) -> tuple[str, Path]:
    """The commit before the newest migration, its `src/` exported under `root`."""
    newest = git("log", "-n1", "--no-merges", "--format=%H", "--", "src/atrium/migrations/")
    earlier = git("rev-parse", f"{newest}^")
    archive = subprocess.run(
        ["git", "archive", earlier, "src"], cwd=REPO, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    return earlier, root / "src"


def test_data_of_an_earlier_version_is_backed_up_migrated_and_complete(tmp_path: Path) -> None:
    export = tmp_path / "earlier"
    export.mkdir()
    earlier, src = earlier_source(export)
    data_dir = tmp_path / "atrium-data"
    data_dir.mkdir(mode=0o700)
    old_env = atrium_env(data_dir, None, ATRIUM_RATE_LIMITS="0", PYTHONPATH=str(src))
    # The earlier version's own commands write the organization.
    atrium(old_env, "chat", "create-realm", "--name", "Upgrade Test")
    atrium(
        old_env, "chat", "create-user", "--email", OWNER, "--full-name", "Kim", "--role", "owner"
    )
    match = re.search(r"^key=(\S+)$", atrium(old_env, "chat", "api-key", OWNER), re.MULTILINE)
    assert match
    atrium(old_env, "wiki", "create-user", ADMIN, "--password", ADMIN_PASSWORD, "--groups", "sysop")
    org = Org(old_env, data_dir, None, match.group(1))

    acked = Acknowledged()
    with running_server(old_env, READY, log_name="earlier.log") as server:
        with _chat_client(server.url, org) as client:
            resp = client.post(
                "/api/v1/users/me/subscriptions",
                data={"subscriptions": orjson.dumps([{"name": STREAM}]).decode()},
            )
            assert resp.json()["result"] == "success", resp.text
        with load(server.url, org, 0, acked):
            deadline = time.monotonic() + 120
            while len(acked.messages) < 20 or len(acked.revisions) < 4:
                assert time.monotonic() < deadline, "the earlier version took no writes"
                time.sleep(0.05)
    assert "Traceback" not in (data_dir / "earlier.log").read_text()

    env = atrium_env(data_dir, None, ATRIUM_RATE_LIMITS="0")
    org = Org(env, data_dir, None, org.api_key)
    with running_server(env, READY, log_name="upgraded.log") as server:
        check_messages(server.url, org, acked, random.Random(0))
        check_revisions(server.url, acked)
    log = (data_dir / "upgraded.log").read_text()
    assert "Migrations to apply" in log, (earlier, log)
    backups = sorted((data_dir / "backups").glob("pre-upgrade-*"))
    assert len(backups) == 1, log
    assert "Traceback" not in log
    verified = subprocess.run(
        [sys.executable, "-m", "atrium.cli", "restore", "--verify", str(backups[0])],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verified.returncode == 0, verified.stderr
    check_sqlite(data_dir)

    # Data a newer version wrote (a revision this code does not know) is refused, untouched.
    conn = sqlite3.connect(data_dir / "chat.sqlite3")
    with conn:
        conn.execute("UPDATE alembic_version_chat SET version_num = '9999_from_the_future'")
    conn.close()
    refused = subprocess.run(
        [sys.executable, "-m", "atrium.cli", "serve", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 1
    assert "revision 9999_from_the_future, which this version of Atrium does not know" in (
        refused.stderr
    )
    assert "Traceback" not in refused.stderr and refused.stdout == ""
