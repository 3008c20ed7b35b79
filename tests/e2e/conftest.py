"""End-to-end fixtures: a real `atrium serve` with a small organization, and zulip clients for it."""

from __future__ import annotations

import configparser
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import zulip

from tests.e2e.seed import ChatUser, create_chat_realm, prepare_data_dir, zuliprc
from tests.e2e.server import atrium_env, running_server


@dataclass
class LiveChat:
    site: str
    owner: zulip.Client
    member: zulip.Client
    member_email: str
    # A generic bot owned by the owner: its email and zuliprc text.
    bot_email: str = ""
    bot_zuliprc: str = ""


def client_from_zuliprc(text: str, path: Path) -> zulip.Client:
    path.write_text(text)
    config = configparser.ConfigParser()
    config.read(path)
    return zulip.Client(config_file=str(path))


@pytest.fixture
def live_chat(
    data_dir: Path, database_url: str | None, tmp_path: Path, sqlite_templates: Path
) -> Iterator[LiveChat]:
    # The organization `atrium chat create-realm` and `create-user` would make, written
    # in-process (tests/e2e/seed.py); the server is a real `atrium serve`.
    settings = prepare_data_dir(data_dir, database_url, sqlite_templates)
    create_chat_realm(
        settings,
        "Live Test",
        [
            ChatUser("owner@live.test", "Olive Owner", password="owner-pw", role="owner"),
            ChatUser("member@live.test", "Mo Member", role="member"),
            ChatUser("hello-bot@live.test", "Hello Bot", bot_owner="owner@live.test"),
        ],
    )
    # Outgoing-webhook tests stand their integrations up on loopback, which only the allowlist
    # lets the server reach.
    env = atrium_env(
        data_dir, database_url, ATRIUM_SERVICES="chat", ATRIUM_EGRESS_ALLOW="127.0.0.1"
    )
    with running_server(env) as server:
        site = server.url
        owner = client_from_zuliprc(
            zuliprc(settings, "owner@live.test", site), tmp_path / "owner.zuliprc"
        )
        member = client_from_zuliprc(
            zuliprc(settings, "member@live.test", site), tmp_path / "member.zuliprc"
        )
        bot_zuliprc = zuliprc(settings, "hello-bot@live.test", site)
        yield LiveChat(site, owner, member, "member@live.test", "hello-bot@live.test", bot_zuliprc)
