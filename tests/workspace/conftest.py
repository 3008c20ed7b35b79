"""A workspace app (chat and wiki in one) with an organization, and members made through it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import pytest

from atrium.chat.actions.realm import create_realm
from atrium.chat.models import ROLE_MEMBER
from atrium.chat.runtime import ChatRuntime
from atrium.server import create_app
from atrium.settings import Settings
from atrium.workspace.members import Member, Members
from tests.conftest import WORKSPACE_SERVICES, copy_sqlite_templates

PASSWORD = "one-password-for-all"


@dataclass
class Workspace:
    settings: Settings
    members: Members
    chat: ChatRuntime
    client: httpx.AsyncClient

    async def member(
        self, email: str, full_name: str, role: int = ROLE_MEMBER, password: str = PASSWORD
    ) -> Member:
        return await self.members.create(email, full_name, password, role)

    def browser(self) -> httpx.AsyncClient:
        """Another browser on the same app (its own cookies)."""
        return httpx.AsyncClient(transport=self.client._transport, base_url="http://testserver")


def workspace_settings(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir, wiki_main_page=False)


@pytest.fixture
async def workspace(data_dir: Path, sqlite_templates: Path) -> AsyncIterator[Workspace]:
    copy_sqlite_templates(sqlite_templates, data_dir, WORKSPACE_SERVICES)
    settings = replace(workspace_settings(data_dir), migrate_on_start=False)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        chat: ChatRuntime = app.state.services["chat"].state["runtime"]
        await chat.db.write(create_realm, "Zulip Dev", "zulip")
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield Workspace(settings, app.state.account_links, chat, client)
