"""The data directory and the files in it are private to the account that runs the server.

The attack: under the default umask 022 the databases (plaintext API keys), uploads and
directories were readable by every local user. Now the commands create the directory 0700 and
everything in it with umask 077, and close an existing directory that others could enter.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.server import atrium, atrium_env, running_server


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _open_to_others(root: Path) -> list[str]:
    """Everything under `root` (itself included) that group or others may use."""
    found = [root, *root.rglob("*")]
    return [f"{p} {_mode(p):o}" for p in found if _mode(p) & 0o077 and not p.is_symlink()]


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """The commands run under the default umask a login shell has."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def test_a_new_data_directory_is_private(tmp_path: Path, loose_umask: None) -> None:
    data_dir = tmp_path / "fresh" / "atrium-data"
    env = atrium_env(data_dir, None)
    atrium(env, "chat", "create-realm", "--name", "Private")
    assert _mode(data_dir) == 0o700
    assert (data_dir / "chat.sqlite3").exists()
    assert _open_to_others(data_dir) == []


def test_an_existing_open_data_directory_is_closed_with_a_notice(
    tmp_path: Path, loose_umask: None
) -> None:
    data_dir = tmp_path / "atrium-data"
    data_dir.mkdir(mode=0o755)
    data_dir.chmod(0o755)
    result = subprocess.run(
        [sys.executable, "-m", "atrium.cli", "chat", "create-realm", "--name", "Was open"],
        env=atrium_env(data_dir, None),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "open to other users (mode 755)" in result.stderr
    assert _mode(data_dir) == 0o700
    assert _mode(data_dir / "chat.sqlite3") == 0o600


def test_the_server_writes_private_files(tmp_path: Path, loose_umask: None) -> None:
    data_dir = tmp_path / "served"
    data_dir.mkdir()  # the test's server log goes there; the server closes the directory
    env = atrium_env(data_dir, None)
    with running_server(env, ready_path="/w/api.php") as server:
        # Something the server itself writes while serving: a wiki page, a session.
        assert httpx.get(server.url + "/w/api.php?action=query&format=json").status_code == 200
    assert _mode(data_dir) == 0o700
    assert (data_dir / "wiki.sqlite3").exists()
    (data_dir / "server.log").unlink()  # written by the test, not the server
    assert _open_to_others(data_dir) == []
