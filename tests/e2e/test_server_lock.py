"""`atrium serve` as the operator meets it: a busy port, a second server on the same data, a crash.

Real processes: the port and the lock are what the kernel says they are.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import free_port
from tests.e2e.seed import prepare_data_dir
from tests.e2e.server import atrium_env, running_server

pytestmark = pytest.mark.e2e

READY = "/api/v1/server_settings"


def serve(env: dict[str, str], port: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atrium.cli", "serve", "--port", str(port)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    data_dir = tmp_path_factory.mktemp("lock") / "atrium-data"
    data_dir.mkdir(mode=0o700)
    prepare_data_dir(data_dir, None, None)
    return atrium_env(data_dir, None, ATRIUM_SERVICES="chat")


def test_busy_port_is_one_line_and_a_failure(env: dict[str, str]) -> None:
    with contextlib.closing(socket.socket()) as other:
        other.bind(("127.0.0.1", 0))
        other.listen(1)
        port = other.getsockname()[1]
        result = serve(env, port)
    assert result.returncode != 0
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"error: 127.0.0.1:{port} is already in use by another program; stop it or choose"
        " another port (--port or ATRIUM_PORT)"
    ]


def test_second_server_refused_and_lock_released_by_kill_9(env: dict[str, str]) -> None:
    data_dir = Path(env["ATRIUM_DATA_DIR"])
    with running_server(env, READY) as first:
        # On another port, and on the same one: the server is named, not "another program".
        port = int(first.url.rsplit(":", 1)[1])
        for second in (serve(env, free_port()), serve(env, port)):
            assert second.returncode == 1
            holder = f"process {first.process.pid} holds {data_dir / 'atrium.lock'}"
            assert holder in second.stderr
            assert "Traceback" not in second.stderr
            assert "listening" not in second.stdout.lower()
        # CLI commands do not take the lock: they work while the server runs.
        cli = subprocess.run(
            [sys.executable, "-m", "atrium.cli", "chat", "create-realm", "--name", "Locked"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert cli.returncode == 0, cli.stderr
        first.kill()  # SIGKILL to the whole group: nothing of it can release the lock
    with running_server(env, READY) as again:
        assert again.process.poll() is None
    log = (data_dir / "server.log").read_text()
    assert "Atrium listening on 127.0.0.1:" in log
