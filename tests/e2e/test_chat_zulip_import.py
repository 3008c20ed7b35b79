"""A Zulip export brought in by the `atrium chat import-zulip` command, then read by the `zulip`
Python client and by zulip-terminal from a real `atrium serve`: the imported organization as a
client sees it."""

from __future__ import annotations

import email
import email.policy
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import httpx
import pytest

from atrium.settings import Settings
from atrium.wiki.app import open_wiki
from atrium.wiki.reads.users import account_by_name
from tests.chat.zulip_export_builder import standard_export
from tests.e2e.conftest import client_from_zuliprc
from tests.e2e.seed import prepare_data_dir, zuliprc
from tests.e2e.server import LiveServer, atrium, atrium_env, running_server
from tests.e2e.zulip_terminal import (
    Tmux,
    left_column,
    messages_column,
    missing,
    terminal_client,
    users_column,
)
from tests.mail_server import link_in

pytestmark = pytest.mark.e2e


@dataclass
class Imported:
    settings: Settings
    server: LiveServer
    output: str
    folder: Path


@pytest.fixture(scope="module")
def imported(
    tmp_path_factory: pytest.TempPathFactory, sqlite_templates: Path
) -> Iterator[Imported]:
    """One import for the module, into a fresh data directory with both services (as `atrium
    serve` runs by default), and a server on it."""
    folder = tmp_path_factory.mktemp("zulip-import")
    data_dir = folder / "atrium-data"
    data_dir.mkdir()
    settings = prepare_data_dir(data_dir, None, sqlite_templates)
    env = atrium_env(data_dir, None)
    archive = standard_export().write(folder / "acme.tar.gz")
    output = atrium(env, "chat", "import-zulip", str(archive))
    with running_server(env) as server:
        yield Imported(settings, server, output, folder)


def test_the_zulip_client_reads_an_imported_organization(imported: Imported) -> None:
    assert "Imported the organization" in imported.output
    settings, server, tmp_path = imported.settings, imported.server, imported.folder
    hamlet = client_from_zuliprc(
        zuliprc(settings, "hamlet@acme.test", server.url), tmp_path / "hamlet.zuliprc"
    )
    found = hamlet.get_messages(
        {
            "anchor": "oldest",
            "num_before": 0,
            "num_after": 50,
            "narrow": [{"operator": "stream", "operand": "general"}],
            "apply_markdown": False,
        }
    )
    assert found["result"] == "success", found
    assert [m["content"] for m in found["messages"]] == [
        "Hi **all**",
        "second draft",
        "@**King Hamlet** look",
        "a notice",
    ]
    searched = hamlet.get_messages(
        {
            "anchor": "newest",
            "num_before": 10,
            "num_after": 0,
            "narrow": [{"operator": "search", "operand": "secret"}],
        }
    )
    assert [m["subject"] for m in searched["messages"]] == ["plans"]
    subs = hamlet.get_subscriptions()
    assert sorted(s["name"] for s in subs["subscriptions"]) == [
        "design",
        "general",
        "secret plans",
    ]
    members = hamlet.get_members()
    names = {m["full_name"] for m in members["members"]}
    assert {"Iago", "King Hamlet", "Cordelia", "Helper"} <= names
    sent = hamlet.send_message(
        {"type": "stream", "to": "general", "topic": "hello", "content": "back home"}
    )
    assert sent["result"] == "success", sent


def test_imported_people_become_workspace_members(imported: Imported) -> None:
    assert "member(s) with one account for chat and wiki" in imported.output
    wiki_db, _site = open_wiki(imported.settings)
    try:
        hamlet = wiki_db.read_sync(account_by_name, "King Hamlet")
    finally:
        wiki_db.close()
    assert hamlet is not None


def _csrf(page: httpx.Response) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert match is not None, page.text
    return match.group(1)


def _sunk_mail(sink: Path, recipient: str, timeout: float = 20) -> EmailMessage:
    """The mail the server wrote to its mail sink (no SMTP server configured) for `recipient`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in sorted(sink.glob("*.eml")) if sink.is_dir() else []:
            mail = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            if recipient in str(mail["To"]):
                assert isinstance(mail, EmailMessage)
                return mail
        time.sleep(0.2)
    raise AssertionError(f"no mail to {recipient} in {sink}")


def test_zulip_terminal_opens_the_imported_organization(imported: Imported) -> None:
    """Passwords do not travel: Hamlet sets his through the reset mail, signs in for an API key
    as zulip-terminal's users do, and the terminal shows the organization that was imported."""
    if shutil.which("tmux") is None:
        missing("tmux is not installed")
    executable = terminal_client()
    server, tmp_path = imported.server, imported.folder
    with httpx.Client(base_url=server.url, timeout=30) as web:
        refused = web.post(
            "/api/v1/fetch_api_key",
            data={"username": "hamlet@acme.test", "password": "argon2"},
        )
        # No password came with him (a wrong one, not the rate limit, is what refuses it).
        assert 400 <= refused.status_code < 500 and refused.status_code != 429, refused.text
        form = web.get("/accounts/password/reset/")
        asked = web.post(
            "/accounts/password/reset/",
            data={"email": "hamlet@acme.test", "csrf_token": _csrf(form)},
        )
        assert asked.status_code == 303, asked.text
        mail = _sunk_mail(imported.settings.mail_sink_dir, "hamlet@acme.test")
        link = link_in(mail, r"https?://\S+/accounts/password/reset/\S+/")
        link = re.sub(r"^https?://[^/]+", "", link)
        page = web.get(link)
        done = web.post(
            link,
            data={
                "new_password1": "elsinore-22",
                "new_password2": "elsinore-22",
                "csrf_token": _csrf(page),
            },
        )
        assert done.status_code == 200 and "Password reset complete" in done.text, done.text
        key = web.post(
            "/api/v1/fetch_api_key",
            data={"username": "hamlet@acme.test", "password": "elsinore-22"},
        )
        assert key.status_code == 200, key.text
        rc = tmp_path / "hamlet.zuliprc"
        rc.write_text(
            f"[api]\nemail={key.json()['email']}\nkey={key.json()['api_key']}\nsite={server.url}\n"
        )
        rc.chmod(0o600)  # zulip-term refuses a zuliprc others can read
        name = f"atrium-zt-import-{time.monotonic_ns()}"
        terminal = Tmux(name, [str(executable), "-c", str(rc)], tmp_path)
        try:
            # The newest imported message Hamlet may read: the server bot's notice in #general.
            screen = terminal.wait_for(
                lambda s: "a notice" in messages_column(s), "the newest imported message", 120
            )
            streams = left_column(screen)
            # His streams, the private one included (zulip-term marks it with a padlock).
            for stream in ("general", "design", "secret plans"):
                assert stream in streams, streams
            # Signed in to the imported organization under its name.
            assert "King Hamlet (hamlet@acme.test) - Acme Corp" in screen.splitlines()[0], (
                screen + terminal.errors()
            )
            assert "King Hamlet" in users_column(screen)
            shown = messages_column(screen)
            # Stream, direct and group messages, each under its imported sender.
            for text in ("Hi all", "private hi", "group hi", "second draft", "King Hamlet"):
                assert text in shown, (text, shown)
            assert "first draft" not in shown  # the edit's earlier text is history only
        finally:
            terminal.close()
