"""The workspace harness: one app with both services over fresh SQLite databases, the chat's
named users (tests/chat/conftest.py) and the wiki's (tests/wiki/conftest.py), and page factories.

SQLite only: what the bridge adds reads both services through their own read functions, which
each service's suite already runs on both backends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from atrium.chat.actions.realm import create_realm
from atrium.chat.models import ROLE_ADMINISTRATOR, ROLE_GUEST, ROLE_MEMBER, ROLE_OWNER
from atrium.chat.runtime import ChatRuntime
from atrium.server import create_app
from atrium.wiki.changes.pages import Editor, save_revision
from atrium.wiki.runtime import WikiRuntime
from tests.chat.conftest import ChatHarness, chat_settings
from tests.conftest import copy_sqlite_templates
from tests.wiki.conftest import _setup_users


class WorkspaceHarness(ChatHarness):
    """The chat harness, with the wiki running beside it."""

    def __init__(self, app: Any, runtime: ChatRuntime, client: httpx.AsyncClient, realm_id: int):
        super().__init__(runtime, client, realm_id)
        self.app = app

    @property
    def wiki(self) -> WikiRuntime:
        runtime: WikiRuntime = self.app.state.services["wiki"].state["runtime"]
        return runtime

    async def edit_page(self, title: str, text: str, summary: str = "") -> int:
        """Factory: save a revision as the wiki's Admin; returns the revision id."""
        site = self.wiki.site
        parsed = site.parser.parse(title)

        def write(conn: Any) -> int:
            from atrium.wiki.reads.users import account_by_name

            admin = account_by_name(conn, "Admin")
            assert admin is not None
            saved = save_revision(
                conn, site, parsed, text, Editor(admin.id, "Admin"), comment=summary
            )
            return int(saved.rev_id)

        return await self.wiki.db.write(write)


@pytest.fixture
async def workspace(data_dir: Path, sqlite_templates: Path) -> AsyncIterator[WorkspaceHarness]:
    copy_sqlite_templates(sqlite_templates, data_dir)
    settings = chat_settings(
        data_dir, None, migrate_on_start=False, wiki_main_page=False, wiki_audience="edit"
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
            yield harness
