"""`atrium bridge …`: the wiki feed's rules and the discussion stream from the command line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from atrium.chat.actions.streams import StreamOptions, subscribe
from atrium.chat.models import User
from atrium.chat.queries.users import user_row_by_delivery_email
from atrium.cli import main
from atrium.core.db import Conn
from tests.conftest import copy_sqlite_templates
from tests.e2e.seed import ChatUser, chat_write, create_chat_realm, prepare_data_dir


def test_rules_and_discussion_stream(
    data_dir: Path, sqlite_templates: Path, bridge_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir.chmod(0o700)
    copy_sqlite_templates(sqlite_templates, data_dir)
    shutil.copyfile(bridge_template, data_dir / "bridge.sqlite3")
    monkeypatch.setenv("ATRIUM_DATA_DIR", str(data_dir))
    monkeypatch.delenv("ATRIUM_DATABASE_URL", raising=False)
    settings = prepare_data_dir(data_dir, None, None)
    create_chat_realm(
        settings, "Cli Org", [ChatUser("boss@cli.test", "Boss", "pw-boss-1", "owner")]
    )

    def make_stream(conn: Conn) -> None:
        boss = User.from_row(user_row_by_delivery_email(conn, 1, "boss@cli.test"))
        subscribe(conn, boss, [{"name": "wiki"}], [boss.id], StreamOptions(), True)

    chat_write(settings, make_stream)
    runner = CliRunner()

    def run(*args: str) -> tuple[int, str]:
        result = runner.invoke(main, ["bridge", *args])
        return result.exit_code, result.output

    assert run("add-wiki-feed-rule", "--stream", "nope") == (1, "error: no stream named 'nope'\n")
    code, out = run(
        "add-wiki-feed-rule", "--stream", "wiki", "--scope", "category", "--target", "Help:X"
    )
    assert (code, out) == (1, "error: Not a category: Help:X\n")
    code, out = run("add-wiki-feed-rule", "--stream", "wiki", "--events", "edit,purge")
    assert code == 1 and "Invalid event: purge" in out
    assert run(
        "add-wiki-feed-rule",
        "--stream",
        "wiki",
        "--scope",
        "namespace",
        "--target",
        "Help",
        "--events",
        "edit,create",
    ) == (0, "Rule 1 added.\n")
    assert run("wiki-feed-rules") == (0, "1\tstream 1\tnamespace 12\tcreate,edit\t(page title)\n")
    assert run("remove-wiki-feed-rule", "1") == (0, "Rule 1 removed.\n")
    assert run("remove-wiki-feed-rule", "1") == (1, "error: no rule 1\n")
    assert run("wiki-feed-rules") == (0, "")
    assert run("discussion-stream") == (0, "No discussion stream.\n")
    assert run("discussion-stream", "wiki") == (0, "Pages are discussed in stream 'wiki'.\n")
    assert run("discussion-stream") == (0, "stream 1\n")
    assert run("discussion-stream", "--none") == (0, "No discussion stream.\n")
