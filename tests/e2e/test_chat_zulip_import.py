"""A Zulip export brought in by the `atrium chat import-zulip` command, then read by the `zulip`
Python client from a real `atrium serve`: the imported organization as a client sees it."""

from __future__ import annotations

from pathlib import Path

import pytest

from atrium.wiki.app import open_wiki
from atrium.wiki.reads.users import account_by_name
from tests.chat.zulip_export_builder import standard_export
from tests.e2e.conftest import client_from_zuliprc
from tests.e2e.seed import prepare_data_dir, zuliprc
from tests.e2e.server import atrium, atrium_env, running_server

pytestmark = pytest.mark.e2e


def test_the_zulip_client_reads_an_imported_organization(
    data_dir: Path, tmp_path: Path, sqlite_templates: Path
) -> None:
    settings = prepare_data_dir(data_dir, None, sqlite_templates)
    env = atrium_env(data_dir, None, ATRIUM_SERVICES="chat")
    archive = standard_export().write(tmp_path / "acme.tar.gz")
    output = atrium(env, "chat", "import-zulip", str(archive))
    assert "Imported the organization" in output
    with running_server(env) as server:
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


def test_imported_people_become_workspace_members(
    data_dir: Path, tmp_path: Path, sqlite_templates: Path
) -> None:
    settings = prepare_data_dir(data_dir, None, sqlite_templates)
    env = atrium_env(data_dir, None)
    archive = standard_export().write(tmp_path / "acme.tar.gz")
    output = atrium(env, "chat", "import-zulip", str(archive))
    assert "member(s) with one account for chat and wiki" in output
    wiki_db, _site = open_wiki(settings)
    try:
        hamlet = wiki_db.read_sync(account_by_name, "King Hamlet")
    finally:
        wiki_db.close()
    assert hamlet is not None
