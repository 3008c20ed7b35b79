"""The workspace harness: one app with both services and the bridge over fresh databases
(SQLite, and one PostgreSQL database holding every schema), the chat's named users
(tests/chat/conftest.py) and the wiki's (tests/wiki/conftest.py), and page factories.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from atrium.chat.actions.realm import create_realm
from atrium.chat.models import ROLE_ADMINISTRATOR, ROLE_GUEST, ROLE_MEMBER, ROLE_OWNER
from atrium.chat.runtime import ChatRuntime
from atrium.core import migrations
from atrium.server import create_app
from atrium.wiki.changes.pages import Editor, EditRequest, edit_page
from atrium.wiki.reads.users import account_by_name
from atrium.wiki.runtime import WikiRuntime
from atrium.workspace import identities
from atrium.workspace.bridge.feed import WikiFeed
from atrium.workspace.members import Members
from tests.chat.conftest import ChatHarness, Member, chat_settings
from tests.conftest import copy_sqlite_templates
from tests.wiki.conftest import _setup_users


class WorkspaceHarness(ChatHarness):
    """The chat harness, with the wiki running beside it."""

    def __init__(self, app: Any, runtime: ChatRuntime, client: httpx.AsyncClient, realm_id: int):
        super().__init__(runtime, client, realm_id)
        self.app = app

    async def make_user(
        self,
        short_name: str,
        role: int = ROLE_MEMBER,
        full_name: str | None = None,
        bot_owner: Member | None = None,
        password: str | None = None,
    ) -> Member:
        """A chat user as the workspace makes members: with an identity and a wiki user (a bot
        stays the chat's alone)."""
        user = await super().make_user(short_name, role, full_name, bot_owner, password)
        await self.members.adopt_chat_user(user.id)
        return user

    @property
    def members(self) -> Members:
        members: Members = self.app.state.account_links
        return members

    async def wiki_user_id(self, user: Member) -> int:
        """The wiki user of a member's identity."""
        core = self.app.state.sessions.db
        identity = await core.read(identities.by_account, identities.CHAT, user.id)
        accounts = await core.read(identities.accounts, int(identity["id"]))
        return int(accounts[identities.WIKI]["user_id"])

    @property
    def feed(self) -> WikiFeed:
        feed: WikiFeed = self.app.state.services["bridge"].state["feed"]
        return feed

    @property
    def wiki(self) -> WikiRuntime:
        runtime: WikiRuntime = self.app.state.services["wiki"].state["runtime"]
        return runtime

    async def edit_page(self, title: str, text: str, summary: str = "") -> int:
        """Factory: an edit as the wiki's Admin makes it (recent changes included); returns
        the new revision's id."""
        site = self.wiki.site
        parsed = site.parser.parse(title)

        def write(conn: Any) -> int:
            admin = account_by_name(conn, "Admin")
            assert admin is not None
            editor = Editor(admin.id, "Admin", frozenset(admin.rights))
            done = edit_page(conn, site, EditRequest(parsed, editor, text=text, summary=summary))
            return int(done.new_rev_id)

        return await self.wiki.db.write(write)


@pytest.fixture(scope="session")
def bridge_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bridge-template") / "bridge.sqlite3"
    migrations.upgrade("bridge", None, path)
    return path


@pytest.fixture
def service_under_test() -> str:
    """The PostgreSQL database these tests get holds both services' schemas and the bridge's."""
    return "workspace"


@pytest.fixture
async def workspace(
    data_dir: Path, database_url: str | None, sqlite_templates: Path, bridge_template: Path
) -> AsyncIterator[WorkspaceHarness]:
    if database_url is None:
        copy_sqlite_templates(sqlite_templates, data_dir)
        shutil.copyfile(bridge_template, data_dir / "bridge.sqlite3")
    # The feed is run by the tests, pass by pass (`WorkspaceHarness.feed`).
    settings = chat_settings(
        data_dir,
        database_url,
        migrate_on_start=False,
        wiki_main_page=False,
        wiki_audience="edit",
        wiki_feed_seconds=0,
    )
    app = create_app(settings, services=("chat", "wiki"))
    runtime: ChatRuntime = app.state.services["chat"].state["runtime"]
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            realm_id = await runtime.db.write(create_realm, "Zulip Test", "zulip")
            harness = WorkspaceHarness(app, runtime, client, realm_id)
            await harness.make_user("desdemona", ROLE_OWNER)
            await harness.make_user("iago", ROLE_ADMINISTRATOR)
            await harness.make_user("hamlet", ROLE_MEMBER, "King Hamlet")
            await harness.make_user("cordelia", ROLE_MEMBER, "Cordelia, Lear's daughter")
            await harness.make_user("polonius", ROLE_GUEST)
            await harness.wiki.db.write(_setup_users)
            await harness.feed.run_once()  # the feed starts reading from here
            yield harness


@contextlib.asynccontextmanager
async def wiki_client(
    ws: WorkspaceHarness, name: str, password: str
) -> AsyncIterator[httpx.AsyncClient]:
    """A signed-in api.php client (action=login), on the wiki's own origin."""
    transport = httpx.ASGITransport(app=ws.app, client=("127.0.0.1", 12345))
    async with httpx.AsyncClient(
        transport=transport, base_url=ws.runtime.settings.base_url
    ) as client:
        await _login(client, name, password)
        yield client


async def _login(client: httpx.AsyncClient, name: str, password: str) -> None:
    token = (
        await client.get(
            "/w/api.php",
            params={"action": "query", "meta": "tokens", "type": "login", "format": "json"},
        )
    ).json()["query"]["tokens"]["logintoken"]
    done = (
        await client.post(
            "/w/api.php",
            data={
                "action": "login",
                "lgname": name,
                "lgpassword": password,
                "lgtoken": token,
                "format": "json",
            },
        )
    ).json()
    assert done["login"]["result"] == "Success", done


async def wiki_post(client: httpx.AsyncClient, **params: Any) -> Any:
    if "token" not in params:
        tokens = (
            await client.get(
                "/w/api.php", params={"action": "query", "meta": "tokens", "format": "json"}
            )
        ).json()
        params["token"] = tokens["query"]["tokens"]["csrftoken"]
    params["format"] = "json"
    return (await client.post("/w/api.php", data=params)).json()
