"""The wiki API's own session (login tokens, bot-password logins) under an https public URL:
`Secure`, `__Host-` prefixed, and read under that name only."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from atrium.server import create_app
from atrium.settings import Settings
from atrium.wiki.app import open_wiki
from atrium.wiki.changes.accounts import create_bot_password, create_user
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio


@pytest.fixture
def service_under_test() -> str:
    return "wiki"


@pytest.fixture
async def https_wiki(
    data_dir: Path, database_url: str | None
) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    settings = Settings(
        data_dir=data_dir,
        database_url=database_url,
        external_url="https://wiki.example",
        wiki_main_page=False,
    )
    app = create_app(settings, services=("wiki",))
    async with app.router.lifespan_context(app):
        db, _site = open_wiki(settings)

        def setup(conn: Any) -> str:
            create_user(conn, "Robot", "robot-password-1", groups=["bot"])
            robot = account_by_name(conn, "Robot")
            assert robot is not None
            return create_bot_password(conn, robot.id, "tests", ["basic"])

        try:
            password = db.write_sync(setup)
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="https://wiki.example"
            ) as client:
                yield client, password
        finally:
            db.close()


async def test_api_session_cookie_is_secure_and_host_prefixed(
    https_wiki: tuple[httpx.AsyncClient, str],
) -> None:
    client, password = https_wiki
    tokens = await client.get(
        "/w/api.php",
        params={"action": "query", "meta": "tokens", "type": "login", "format": "json"},
    )
    token = tokens.json()["query"]["tokens"]["logintoken"]
    login = await client.post(
        "/w/api.php",
        data={
            "action": "login",
            "lgname": "Robot@tests",
            "lgpassword": password,
            "lgtoken": token,
            "format": "json",
        },
    )
    assert login.json()["login"]["result"] == "Success", login.text
    cookies = login.headers.get_list("set-cookie")
    session = next(c for c in cookies if c.startswith("__Host-atriumwiki_session="))
    assert "Secure" in session and "HttpOnly" in session and "Path=/" in session
    assert "Domain" not in session
    assert not any(c.startswith("atriumwiki_session=") for c in cookies)
    info = await client.get(
        "/w/api.php", params={"action": "query", "meta": "userinfo", "format": "json"}
    )
    assert info.json()["query"]["userinfo"]["name"] == "Robot"
