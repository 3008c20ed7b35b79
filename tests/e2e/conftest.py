"""End-to-end fixtures: a real `atrium serve` with a small organization, and zulip clients for it.

`live_chat` starts a server for each test; `live_chat_module` one for each module and backend,
for tests that make their own streams, users and settings under names no other test of their
module uses, and assert nothing about the whole organization.
"""

from __future__ import annotations

import configparser
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import zulip

from tests.conftest import BACKENDS, PostgresServer
from tests.e2e.browser_server import BrowserServer
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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # tests/conftest.py marks tests by their function-scoped `database_url`; these take theirs
    # from `module_database_url` or `module_wiki_database_url`.
    for item in items:
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        if "postgres" in (
            params.get("module_database_url"),
            params.get("module_wiki_database_url"),
        ):
            item.add_marker(pytest.mark.postgres)


@pytest.fixture(scope="session")
def browser_server() -> Iterator[BrowserServer]:
    """The worker's Chromium, which browser modules connect to (`connected_browser`)."""
    server = BrowserServer()
    yield server
    server.stop()


def _module_database(request: pytest.FixtureRequest, service: str) -> Iterator[str | None]:
    if request.param == "sqlite":
        yield None
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = server.new_database(service)
    yield url
    server.drop(url)


@pytest.fixture(scope="module", params=BACKENDS)
def module_database_url(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """`database_url` for a module's chat server: SQLite, or a PostgreSQL database of its own
    (the session's reusable one is emptied before each function-scoped test, under the module's
    server)."""
    yield from _module_database(request, "chat")


@pytest.fixture(scope="module", params=BACKENDS)
def module_wiki_database_url(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """`module_database_url` for a module's wiki server."""
    yield from _module_database(request, "wiki")


@pytest.fixture
def live_chat(
    data_dir: Path, database_url: str | None, tmp_path: Path, sqlite_templates: Path
) -> Iterator[LiveChat]:
    yield from _live_chat(data_dir, database_url, tmp_path, sqlite_templates)


@pytest.fixture(scope="module")
def live_chat_module(
    module_database_url: str | None,
    tmp_path_factory: pytest.TempPathFactory,
    sqlite_templates: Path,
) -> Iterator[LiveChat]:
    root = tmp_path_factory.mktemp("live-chat")
    data_dir = root / "atrium-data"
    data_dir.mkdir()
    # A module's tests together send more than the 200 requests a minute one user may.
    yield from _live_chat(
        data_dir, module_database_url, root, sqlite_templates, ATRIUM_RATE_LIMIT_API="2000"
    )


def _live_chat(
    data_dir: Path,
    database_url: str | None,
    tmp_path: Path,
    sqlite_templates: Path,
    **env_extra: str,
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
        data_dir,
        database_url,
        ATRIUM_SERVICES="chat",
        ATRIUM_EGRESS_ALLOW="127.0.0.1",
        **env_extra,
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
