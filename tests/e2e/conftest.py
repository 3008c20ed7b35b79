"""End-to-end fixtures: a real `atrium serve` with a small organization, and zulip clients for it."""

from __future__ import annotations

import configparser
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import zulip

from tests.e2e.server import atrium, atrium_env, running_server


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
def live_chat(data_dir: Path, database_url: str | None, tmp_path: Path) -> Iterator[LiveChat]:
    # Outgoing-webhook tests stand their integrations up on loopback, which only the allowlist
    # lets the server reach.
    env = atrium_env(
        data_dir, database_url, ATRIUM_SERVICES="chat", ATRIUM_EGRESS_ALLOW="127.0.0.1"
    )
    atrium(env, "chat", "create-realm", "--name", "Live Test")
    atrium(
        env,
        "chat",
        "create-user",
        "--email",
        "owner@live.test",
        "--full-name",
        "Olive Owner",
        "--password",
        "owner-pw",
        "--role",
        "owner",
    )
    atrium(
        env,
        "chat",
        "create-user",
        "--email",
        "member@live.test",
        "--full-name",
        "Mo Member",
        "--role",
        "member",
    )
    atrium(
        env,
        "chat",
        "create-user",
        "--email",
        "hello-bot@live.test",
        "--full-name",
        "Hello Bot",
        "--bot-owner",
        "owner@live.test",
    )
    with running_server(env) as server:
        site = server.url
        env_site = {**env, "ATRIUM_EXTERNAL_URL": site}
        owner = client_from_zuliprc(
            atrium(env_site, "chat", "api-key", "owner@live.test"), tmp_path / "owner.zuliprc"
        )
        member = client_from_zuliprc(
            atrium(env_site, "chat", "api-key", "member@live.test"), tmp_path / "member.zuliprc"
        )
        bot_zuliprc = atrium(env_site, "chat", "api-key", "hello-bot@live.test")
        yield LiveChat(site, owner, member, "member@live.test", "hello-bot@live.test", bot_zuliprc)
