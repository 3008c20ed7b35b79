"""`atrium chat invite` and `atrium chat invites`: the links an administrator hands on when
there is no mail server (the command says so)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from atrium.cli import main


def test_invite_and_list_print_working_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATRIUM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ATRIUM_DATABASE_URL", raising=False)
    runner = CliRunner()
    assert runner.invoke(main, ["chat", "create-realm", "--name", "Test Org"]).exit_code == 0
    result = runner.invoke(
        main,
        [
            "chat",
            "create-user",
            "--email",
            "boss@example.com",
            "--full-name",
            "Boss",
            "--role",
            "administrator",
        ],
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        main, ["chat", "invite", "new@example.com", "--by", "boss@example.com", "--stream", "x"]
    )
    assert result.exit_code == 1 and "No stream named 'x'." in result.output
    from atrium.chat.actions.streams import StreamOptions, subscribe
    from atrium.chat.cli import chat_database
    from atrium.chat.models import User
    from atrium.chat.queries.users import user_row_by_email
    from atrium.settings import Settings

    with chat_database(Settings.from_env()) as db:

        def write(conn):  # type: ignore[no-untyped-def]
            actor = User.from_row(user_row_by_email(conn, 1, "boss@example.com"))
            return subscribe(conn, actor, [{"name": "welcome"}], [actor.id], StreamOptions(), True)

        db.write_sync(write)
    result = runner.invoke(
        main,
        ["chat", "invite", "new@example.com", "--by", "boss@example.com", "--stream", "welcome"],
    )
    assert result.exit_code == 0, result.output
    email, link = result.stdout.strip().split("\t")
    assert email == "new@example.com" and "/join/" in link
    assert "No mail server is configured" in result.stderr
    listed = runner.invoke(main, ["chat", "invites"])
    assert listed.exit_code == 0 and link in listed.output
