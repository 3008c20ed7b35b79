"""A new data directory served by `atrium serve` without `ATRIUM_WIKI_AUDIENCE` is a private wiki:
anonymous visitors get nothing, while a real MediaWiki client (mwclient, which knows private
wikis) signs in and works. A wrong value stops the start with a clear message."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import mwclient
import pytest

from tests.e2e.seed import create_wiki_users, prepare_data_dir
from tests.e2e.server import atrium_env, running_server

pytestmark = pytest.mark.e2e


@pytest.fixture
def service_under_test() -> str:
    return "wiki"


@pytest.fixture
def default_env(data_dir: Path, database_url: str | None) -> dict[str, str]:
    env = atrium_env(data_dir, database_url)
    del env["ATRIUM_WIKI_AUDIENCE"]
    return env


@pytest.fixture
def private_server(
    default_env: dict[str, str], data_dir: Path, database_url: str | None, sqlite_templates: Path
) -> Iterator[str]:
    # The account `atrium wiki create-user` would make, written in-process (tests/e2e/seed.py)
    # with no audience set, as the CLI without ATRIUM_WIKI_AUDIENCE.
    settings = prepare_data_dir(data_dir, database_url, sqlite_templates)
    assert settings.wiki_audience is None
    create_wiki_users(settings, [("Admin", "admin-pass-123", ["sysop"])])
    with running_server(default_env, "/w/api.php?action=query&format=json") as server:
        yield server.url


def test_new_data_directory_serves_a_private_wiki(private_server: str) -> None:
    site = mwclient.Site(private_server.removeprefix("http://"), path="/w/", scheme="http")
    site.login("Admin", "admin-pass-123")
    site.pages["Roadmap"].edit("Ship the quokka feature.", summary="plan")
    assert site.pages["Roadmap"].text() == "Ship the quokka feature."
    with httpx.Client(base_url=private_server) as anon:
        listed = anon.get("/w/api.php", params={"action": "query", "list": "allpages",
                                               "format": "json"})  # fmt: skip
        assert listed.json()["error"]["code"] == "readapidenied"
        for path in ("/wiki/Roadmap", "/w/index.php?title=Roadmap&action=raw"):
            page = anon.get(path)
            assert page.status_code == 200 and "quokka" not in page.text


def test_an_unknown_audience_stops_the_start(default_env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "atrium.cli", "serve", "--port", "1"],
        env={**default_env, "ATRIUM_WIKI_AUDIENCE": "everyone"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "ATRIUM_WIKI_AUDIENCE must be one of private, read, edit; got 'everyone'" in (
        result.stderr
    )
