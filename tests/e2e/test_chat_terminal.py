"""zulip-terminal 0.7.0, the real terminal client, in tmux against a real `atrium serve`
(tests/e2e/zulip_terminal.py installs and drives it)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import LiveChat
from tests.e2e.zulip_terminal import (
    Tmux,
    left_column,
    messages_column,
    missing,
    terminal_client,
    users_column,
)

pytestmark = pytest.mark.e2e


@pytest.fixture
def start_terminal(live_chat: LiveChat, tmp_path: Path) -> Iterator[Callable[[], Tmux]]:
    """Starts zulip-term as the member, once the test has made the messages it should load.

    zulip-terminal 0.7.0 cannot start on an empty message list: urwid raises "Can't set focus,
    ListBox is empty" while it builds its view, the traceback goes to a log file and the screen
    stays at "Loading" for good. Zulip welcomes every new user with a message; these tests do
    not, so each test sends one before it starts the terminal.
    """
    if shutil.which("tmux") is None:
        missing("tmux is not installed")
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
