"""`atrium init` on an empty data directory, then the owner signs in to the chat and the wiki."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import PostgresServer
from tests.e2e.server import atrium_env, running_server

pytestmark = pytest.mark.e2e

EMAIL, NAME, PASSWORD = "founder@team.test", "Fay Founder", "tangerine-kite-42"


def init(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atrium.cli", "init", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(
    params=[pytest.param("sqlite"), pytest.param("postgres", marks=pytest.mark.postgres)]
)
def fresh_database_url(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """An empty database of its own: `init` writes the wiki's schema too, which the session's
    reusable chat database would keep for the next test."""
    if request.param == "sqlite":
        yield None
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = server.new_database("chat")
    yield url
    server.drop(url)


def test_init_then_owner_signs_in_on_both_services(
    data_dir: Path, fresh_database_url: str | None
) -> None:
    env = atrium_env(data_dir, fresh_database_url, ATRIUM_INIT_PASSWORD=PASSWORD)
    env.pop("ATRIUM_WIKI_MAIN_PAGE")
    args = ("--organization", "Team Ten", "--email", EMAIL, "--name", NAME)
    created = init(env, *args)
    assert created.returncode == 0, created.stderr
    assert "/wiki/Main_Page" in created.stdout
    again = init(env, *args)
    assert again.returncode == 1
    assert again.stderr.strip() == "error: the chat already has an organization"

    with (
        running_server(env, "/api/v1/server_settings") as server,
        httpx.Client(base_url=server.url) as client,
        httpx.Client(base_url=server.url) as chat,
    ):
        key = client.post(
            "/api/v1/fetch_api_key", data={"username": EMAIL, "password": PASSWORD}
        ).json()
        assert key["result"] == "success", key
        chat.auth = (EMAIL, key["api_key"])
        me = chat.get("/api/v1/users/me").json()
        assert me["role"] == 100 and me["full_name"] == NAME
        # No demo data: the owner is the organization's only person.
        humans = [u for u in chat.get("/api/v1/users").json()["members"] if not u["is_bot"]]
        assert [u["email"] for u in humans] == [me["email"]]

        api = "/w/api.php"
        login_token = client.get(
            api, params={"action": "query", "meta": "tokens", "type": "login", "format": "json"}
        ).json()["query"]["tokens"]["logintoken"]
        login = client.post(
            api,
            data={
                "action": "login",
                "lgname": NAME,
                "lgpassword": PASSWORD,
                "lgtoken": login_token,
                "format": "json",
            },
        ).json()
        assert login["login"]["result"] == "Success", login
        info = client.get(
            api,
            params={"action": "query", "meta": "userinfo", "uiprop": "groups", "format": "json"},
        ).json()["query"]["userinfo"]
        assert {"sysop", "bureaucrat"} <= set(info["groups"])
        pages = client.get(
            api, params={"action": "query", "list": "allpages", "format": "json"}
        ).json()
        # The Main Page the wiki writes on its first start (as MediaWiki's installer), no other.
        assert [p["title"] for p in pages["query"]["allpages"]] == ["Main Page"]


def test_init_without_a_terminal_needs_its_flags(data_dir: Path) -> None:
    env = atrium_env(data_dir, None)
    result = init(env, "--organization", "Team Ten", "--email", EMAIL, "--name", NAME)
    assert result.returncode == 1
    assert (
        result.stderr.strip().splitlines()[-1]
        == "error: --password is required when the input is not a terminal"
    )
