"""A private wiki (`ATRIUM_WIKI_AUDIENCE=private`, MediaWiki's `$wgGroupPermissions['*']['read'] =
false`): anonymous callers are refused `readapidenied` by every `readrights` module, while the
modules that need no read right (login tokens, authmanagerinfo, login itself) keep working and
logged-in users read as before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from tests.wiki.conftest import PASSWORDS, WikiHarness

from atrium.server import create_app
from atrium.settings import Settings

pytestmark = pytest.mark.anyio


@pytest.fixture
async def private_client(
    wiki: WikiHarness, data_dir: Path, database_url: str | None
) -> AsyncIterator[httpx.AsyncClient]:
    """A second app over the same database, started with the wiki made private."""
    settings = Settings(
        data_dir=data_dir,
        database_url=database_url,
        port=8080,
        wiki_main_page=False,
        wiki_audience="private",
    )
    app = create_app(settings, services=("wiki",))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 12345))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080") as c:
            yield c


async def _get(client: httpx.AsyncClient, **params: str) -> dict[str, object]:
    response = await client.get("/w/api.php", params={"format": "json", **params})
    data: dict[str, object] = response.json()
    return data


async def test_private_wiki_refuses_anonymous_reads(
    wiki: WikiHarness, private_client: httpx.AsyncClient
) -> None:
    for params in (
        {"action": "query", "list": "allpages"},
        {"action": "query", "list": "recentchanges"},
        {"action": "query", "titles": "Main Page"},
        {"action": "query", "meta": "siteinfo"},
        {"action": "query", "meta": "tokens|siteinfo"},
        {"action": "query", "meta": "tokens", "titles": "X"},
    ):
        data = await _get(private_client, **params)
        error = data.get("error")
        assert isinstance(error, dict), (params, data)
        assert error["code"] == "readapidenied", (params, data)
        assert error["info"] == "You need read permission to use this module."
    tokens = await _get(private_client, action="query", meta="tokens", type="login")
    assert "logintoken" in tokens["query"]["tokens"]  # type: ignore[index]
    userinfo = await _get(private_client, action="query", meta="authmanagerinfo", rawcontinue="1")
    assert "error" not in userinfo
    # Logging in gives the `user` group's `read` back.
    token = tokens["query"]["tokens"]["logintoken"]  # type: ignore[index]
    login = await private_client.post(
        "/w/api.php",
        data={"action": "clientlogin", "username": "Alice", "password": PASSWORDS["Alice"],
              "logintoken": token, "loginreturnurl": "http://127.0.0.1:8080/", "format": "json"},
    )  # fmt: skip
    assert login.json()["clientlogin"]["status"] == "PASS"
    pages = await _get(private_client, action="query", list="allpages")
    assert "error" not in pages and "allpages" in pages["query"]  # type: ignore[operator]


async def test_public_wiki_reads_anonymously(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await wiki.api(client, action="query", list="allpages")
    assert "error" not in data
