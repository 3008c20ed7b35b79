"""zulip-terminal 0.7.0, the real terminal client, in tmux against a real `atrium serve`.

It runs on Python 3.10 (its last supported Python), in a virtual environment this test builds
once and keeps under `.pytest_cache/`. Without Python 3.10 or tmux the test is skipped, except in
CI where it fails.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import LiveChat

pytestmark = pytest.mark.e2e

ZULIP_TERM = "zulip-term==0.7.0"
REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".pytest_cache" / "zulip-term-0.7.0"


def _missing(reason: str) -> None:
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
        _missing("zulip-terminal 0.7.0 needs Python 3.10, which is not installed")
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
        self.run("new-session", "-d", "-s", name, "-x", "200", "-y", "50", "-c", str(cwd), *command)

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
        raise AssertionError(f"the terminal never showed {what}:\n{screen}")

    def close(self) -> None:
        self.run("kill-server", check=False)


@pytest.fixture
def start_terminal(live_chat: LiveChat, tmp_path: Path) -> Iterator[Callable[[], Tmux]]:
    """Starts zulip-term as the member, once the test has made the messages it should load.

    zulip-terminal 0.7.0 cannot start on an empty message list: urwid raises "Can't set focus,
    ListBox is empty" while it builds its view, the traceback goes to a log file and the screen
    stays at "Loading" for good. Zulip welcomes every new user with a message; these tests do
    not, so each test sends one before it starts the terminal.
    """
    if shutil.which("tmux") is None:
        _missing("tmux is not installed")
    executable = terminal_client()
    rc = tmp_path / "member.zuliprc"  # written by the live_chat fixture
    rc.chmod(0o600)  # zulip-term refuses a zuliprc others can read
    sessions: list[Tmux] = []

    def start() -> Tmux:
        name = f"atrium-zt-{os.getpid()}-{len(sessions)}"
        session = Tmux(name, [str(executable), "-c", str(rc)], tmp_path)
        sessions.append(session)
        return session

    try:
        yield start
    finally:
        for session in sessions:
            session.close()


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["result"] == "success", result
    return result


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


def test_terminal_reads_sends_and_sees_others(
    live_chat: LiveChat, start_terminal: Callable[[], Tmux]
) -> None:
    owner = live_chat.owner
    ok(
        owner.add_subscriptions(
            streams=[{"name": "general"}], principals=[owner.email, live_chat.member_email]
        )
    )
    first = ok(
        owner.send_message(
            {"type": "stream", "to": "general", "topic": "greetings", "content": "Hello from Olive"}
        )
    )
    ok(owner.update_presence({"status": "active", "new_user_input": True}))
    terminal = start_terminal()
    # Starts: streams, users (the owner online: zulip-term's "●"), the message.
    screen = terminal.wait_for(lambda s: "Hello from Olive" in s, "the owner's message", 120)
    assert "# general" in left_column(screen)
    users = users_column(screen)
    assert "● Olive Owner" in users and "Mo Member" in users, users
    # Narrows to the message's topic (the stream list has the focus at first), replies.
    terminal.keys("l")
    terminal.wait_for(
        lambda s: "All messages  Search [/]" in messages_column(s), "the message list focused"
    )
    terminal.keys("S")
    terminal.wait_for(lambda s: "general: topic narrow" in s, "the topic narrow")
    terminal.keys("r")
    terminal.wait_for(lambda s: "▶ greetings" in s.split("Messages", 1)[1], "the reply box")
    terminal.type("Typed in the terminal")
    terminal.wait_for(lambda s: "Typed in the terminal" in s, "the typed text")
    terminal.keys("C-d")
    terminal.wait_for(
        lambda s: "● Mo Member" in messages_column(s), "its own message under its name"
    )
    fetched = ok(owner.get_messages({"anchor": "newest", "num_before": 5, "num_after": 0}))
    mine = [m for m in fetched["messages"] if m["sender_email"] == live_chat.member_email]
    assert [(m["subject"], m["content"]) for m in mine] == [
        ("greetings", "<p>Typed in the terminal</p>")
    ]
    # Another user's new message, its edit and a reaction arrive as events.
    second = ok(
        owner.send_message(
            {"type": "stream", "to": "general", "topic": "greetings", "content": "first draft"}
        )
    )
    terminal.wait_for(lambda s: "first draft" in messages_column(s), "the new message")
    ok(owner.update_message({"message_id": second["id"], "content": "edited for real"}))
    screen = terminal.wait_for(lambda s: "edited for real" in messages_column(s), "the edit")
    assert "first draft" not in messages_column(screen)
    ok(owner.add_reaction({"message_id": mine[0]["id"], "emoji_name": "thumbs_up"}))
    terminal.wait_for(
        lambda s: ":thumbs_up: Olive Owner" in messages_column(s), "the reaction and its author"
    )
    # The stream's topics: search the stream list, pick the stream, toggle its topics.
    terminal.keys("Escape")  # closes the compose box, which stays open after a send
    terminal.wait_for(lambda s: "# general" not in messages_column(s), "the compose box closed")
    terminal.keys("q")  # urwid handles keys in order: "gen" goes to the search box
    terminal.type("gen")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "# general" in left_column(s), "the stream found")
    terminal.keys("t")
    # zulip-term draws the "Topics" heading first and fills it when GET .../topics answers.
    terminal.wait_for(
        lambda s: "Topics" in left_column(s) and "greetings" in left_column(s), "the topic list"
    )
    assert first["id"] < second["id"]
