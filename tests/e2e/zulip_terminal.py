"""zulip-terminal 0.7.0, the real terminal client, run in tmux: its installation and its screen.

It runs on Python 3.10 (its last supported Python), in a virtual environment built once and kept
under `.pytest_cache/`. Without Python 3.10 or tmux a test using it is skipped, except in CI
where it fails.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ZULIP_TERM = "zulip-term==0.7.0"
REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".pytest_cache" / "zulip-term-0.7.0"


def missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def python310() -> Path | None:
    """A Python 3.10 that runs (a pyenv shim without the version installed does not)."""
    versions = Path.home() / ".pyenv" / "versions"
    candidates = sorted(versions.glob("3.10*/bin/python3.10")) if versions.is_dir() else []
    found = shutil.which("python3.10")
    for candidate in [*reversed(candidates), *([Path(found)] if found else [])]:
        probe = subprocess.run([str(candidate), "-c", "pass"], capture_output=True, check=False)
        if probe.returncode == 0:
            return candidate
    return None


def terminal_client() -> Path:
    """The zulip-term executable, installed into the cached environment on first use."""
    executable = VENV / "bin" / "zulip-term"
    marker = VENV / ".installed"
    if marker.exists() and executable.exists():
        return executable
    python = python310()
    if python is None:
        missing("zulip-terminal 0.7.0 needs Python 3.10, which is not installed")
        raise AssertionError("unreachable")
    # Two xdist workers may both find it missing: one installs while the other waits for it.
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with (VENV.parent / "zulip-term.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists() and executable.exists():
            return executable
        shutil.rmtree(VENV, ignore_errors=True)
        subprocess.run([str(python), "-m", "venv", str(VENV)], check=True, timeout=300)
        subprocess.run(
            [str(VENV / "bin" / "pip"), "install", "-q", ZULIP_TERM],
            check=True,
            timeout=900,
            capture_output=True,
        )
        marker.touch()
    return executable


def client_environment() -> dict[str, str]:
    """This process's environment without pytest's variables.

    zulip-terminal runs its `@asynch` functions inline when PYTEST_CURRENT_TEST is set (a switch
    for its own unit tests), so its endless event poll would run on the main thread and the
    screen would stay at "Loading" for good.
    """
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}


class Tmux:
    """A tmux server of its own with one detached session running a command; its screen as text.

    A private socket (`-L`) keeps it apart from any other tmux server: a new session takes its
    environment from the server it joins, which another process may have started. `-f /dev/null`
    ignores the user's configuration.
    """

    def __init__(self, name: str, command: list[str], cwd: Path) -> None:
        self.name = name
        # The command's standard error goes to a file, not over its screen: a traceback printed
        # by one of zulip-terminal's threads would overwrite the rows the tests read (it did once,
        # under a loaded run, over the title row), and the file keeps it whole for the report.
        self.stderr = cwd / f"{name}.stderr"
        wrapped = ["sh", "-c", 'exec "$@" 2>>"$0"', str(self.stderr), *command]
        self.run("new-session", "-d", "-s", name, "-x", "200", "-y", "50", "-c", str(cwd), *wrapped)

    def run(self, *args: str, check: bool = True) -> str:
        return subprocess.run(
            ["tmux", "-L", self.name, "-f", "/dev/null", *args],
            env=client_environment(),
            capture_output=True,
            text=True,
            check=check,
            timeout=30,
        ).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.name, check=False)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", self.name, "-l", text)

    def wait_for(self, check: Callable[[str], bool], what: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.3)
        raise AssertionError(f"the terminal never showed {what}:\n{screen}{self.errors()}")

    def errors(self) -> str:
        """What the command wrote to its standard error, for a failure's report."""
        text = self.stderr.read_text() if self.stderr.exists() else ""
        return f"\nstandard error:\n{text}" if text else ""

    def close(self) -> None:
        self.run("kill-server", check=False)


def messages_column(screen: str) -> str:
    """The screen's middle column: what lies between the first and the last vertical rule."""
    rows = []
    for line in screen.splitlines():
        _, _, rest = line.partition("│")
        middle, _, _ = rest.rpartition("│")
        rows.append(middle)
    return "\n".join(rows)


def left_column(screen: str) -> str:
    return "\n".join(line.partition("│")[0] for line in screen.splitlines())


def users_column(screen: str) -> str:
    return "\n".join(line.rpartition("│")[2] for line in screen.splitlines())
