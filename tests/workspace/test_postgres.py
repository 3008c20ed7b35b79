"""The identity store and one sign-in on PostgreSQL (the scale-out mode's `core` schema)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from atrium.chat.actions.realm import create_realm
from atrium.chat.models import ROLE_MODERATOR
from atrium.server import create_app
from atrium.settings import Settings
from atrium.workspace.members import Members
from tests.workspace.conftest import PASSWORD
from tests.workspace.signing import chat_sign_in, wiki_user

pytestmark = pytest.mark.anyio


async def test_members_on_postgres(data_dir: Path, postgres_server: Any) -> None:
    url = postgres_server.new_database("wiki")
    try:
        settings = Settings(data_dir=data_dir, database_url=url, wiki_main_page=False)
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            chat = app.state.services["chat"].state["runtime"]
            await chat.db.write(create_realm, "Zulip Dev", "zulip")
            members: Members = app.state.account_links
            first = await members.create("maya@example.com", "Maya Lin", PASSWORD, ROLE_MODERATOR)
            second = await members.create("other@example.com", "Maya Lin", PASSWORD, 400)
            assert (first.wiki_name, second.wiki_name) == ("Maya Lin", "Maya Lin 2")
            assert await members.create("MAYA@example.com", "Maya Lin", None, 400) == first
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
                assert (await chat_sign_in(c, "Maya Lin")).status_code == 303
                info = await wiki_user(c)
                assert info["name"] == "Maya Lin" and "sysop" in info["groups"]  # type: ignore[operator]
                assert info["centralids"]["CentralAuth"] == first.chat_user_id  # type: ignore[index]
    finally:
        postgres_server.drop(url)
