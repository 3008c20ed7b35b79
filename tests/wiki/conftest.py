"""The wiki test harness: the app over a fresh database (SQLite and PostgreSQL), a client with a
cookie jar per user, named users and page factories.

Named users: `Admin` (sysop, bureaucrat, interface-admin), `Alice` (no groups), `Robot` (bot).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.conftest import copy_sqlite_templates

from atrium.server import create_app
from atrium.settings import Settings
from atrium.wiki.app import open_wiki
from atrium.wiki.changes.accounts import create_bot_password, create_user
from atrium.wiki.changes.pages import Editor, save_revision
from atrium.wiki.reads.users import account_by_name
from atrium.wiki.site import Site

PASSWORDS = {"Admin": "admin-password-1", "Alice": "alice-password-1", "Robot": "robot-password-1"}
GROUPS = {"Admin": ["sysop", "bureaucrat", "interface-admin"], "Alice": [], "Robot": ["bot"]}


@pytest.fixture
def service_under_test() -> str:
    return "wiki"


@dataclass
class WikiHarness:
    app: Any
    settings: Settings
    site: Site
    db: Any
    bot_password: str

    def client(self) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=self.app, client=("127.0.0.1", 12345))
        return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080")

    async def api(self, client: httpx.AsyncClient, **params: Any) -> Any:
        params.setdefault("format", "json")
        response = await client.get("/w/api.php", params=params)
        return response.json()

    async def post(self, client: httpx.AsyncClient, **params: Any) -> Any:
        params.setdefault("format", "json")
        response = await client.post("/w/api.php", data=params)
        return response.json()

    async def login(self, client: httpx.AsyncClient, name: str) -> None:
        token = (await self.api(client, action="query", meta="tokens", type="login"))["query"][
            "tokens"
        ]["logintoken"]
        result = await self.post(
            client,
            action="clientlogin",
            username=name,
            password=PASSWORDS[name],
            logintoken=token,
            loginreturnurl="http://127.0.0.1:8080/",
        )
        assert result["clientlogin"]["status"] == "PASS", result

    async def csrf(self, client: httpx.AsyncClient) -> str:
        data = await self.api(client, action="query", meta="tokens")
        token: str = data["query"]["tokens"]["csrftoken"]
        return token

    async def edit_page(self, title: str, text: str, user: str = "Admin", summary: str = "") -> int:
        """Factory: save a revision directly (no HTTP), as `user`; returns the revision id."""
        parsed = self.site.parser.parse(title)
        editor = Editor(None if user.count(".") == 3 else await self._user_id(user), user)
        saved = await self.db.write(
            lambda conn: save_revision(conn, self.site, parsed, text, editor, comment=summary)
        )
        return int(saved.rev_id)

    async def _user_id(self, name: str) -> int:
        account = await self.db.read(account_by_name, name)
        assert account is not None
        return int(account.id)


def _setup_users(conn: Any) -> str:
    for name, groups in GROUPS.items():
        create_user(conn, name, PASSWORDS[name], groups=groups)
    robot = account_by_name(conn, "Robot")
    assert robot is not None
    return create_bot_password(
        conn, robot.id, "tests", ["basic", "highvolume", "editpage", "createeditmovepage"]
    )


@pytest.fixture
async def wiki(
    data_dir: Path, database_url: str | None, sqlite_templates: Path
) -> AsyncIterator[WikiHarness]:
    # Both backends' databases come migrated (the session's templates), so the app's start-up
    # upgrade would be a no-op.
    if database_url is None:
        copy_sqlite_templates(sqlite_templates, data_dir)
    async with wiki_harness(data_dir, database_url) as harness:
        yield harness


@contextlib.asynccontextmanager
async def wiki_harness(
    data_dir: Path, database_url: str | None, bot_password: str | None = None
) -> AsyncIterator[WikiHarness]:
    """The wiki app over a migrated database; its named users are created unless the database
    already holds them (`bot_password` given: restored from a snapshot that has them)."""
    # No Main Page: the tests count the pages they make. MediaWiki's default audience: the tests
    # read and edit anonymously.
    settings = Settings(
        data_dir=data_dir,
        database_url=database_url,
        port=8080,
        wiki_main_page=False,
        wiki_audience="edit",
        migrate_on_start=False,
    )
    app = create_app(settings, services=("wiki",))
    async with app.router.lifespan_context(app):
        # A second handle on the same database for factories (the service keeps its own).
        db, site = open_wiki(settings)
        try:
            bot_pw = bot_password or db.write_sync(_setup_users)
            yield WikiHarness(app, settings, site, db, bot_pw)
        finally:
            db.close()


@pytest.fixture
async def client(wiki: WikiHarness) -> AsyncIterator[httpx.AsyncClient]:
    async with wiki.client() as c:
        yield c
