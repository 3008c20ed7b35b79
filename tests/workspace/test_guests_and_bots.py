"""The chat's guests read the wiki but do not write to it (unless the organization lets them),
and a deactivated member's bot-password sessions and bot passwords stop working too."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from atrium.chat.actions.realm import create_realm
from atrium.chat.models import ROLE_GUEST, ROLE_OWNER
from atrium.server import create_app
from atrium.settings import Settings
from atrium.wiki.changes.accounts import create_bot_password
from atrium.workspace.members import Members
from tests.conftest import copy_sqlite_templates
from tests.workspace.conftest import Workspace
from tests.workspace.signing import chat_sign_in, csrf_of, wiki_sign_in, wiki_user

pytestmark = pytest.mark.anyio


async def _edit(client: httpx.AsyncClient, title: str) -> dict[str, object]:
    tokens = await client.get(
        "/w/api.php", params={"action": "query", "meta": "tokens", "format": "json"}
    )
    token = tokens.json()["query"]["tokens"]["csrftoken"]
    done = await client.post(
        "/w/api.php",
        data={"action": "edit", "title": title, "text": "x", "token": token, "format": "json"},
    )
    answer: dict[str, object] = done.json()
    return answer


async def test_a_guest_reads_but_does_not_edit(workspace: Workspace) -> None:
    await workspace.member("gus@example.com", "Gus", ROLE_GUEST)
    client = workspace.client
    await wiki_sign_in(client, "Gus")
    assert (await wiki_user(client))["name"] == "Gus"
    recent = await client.get("/wiki/Special:RecentChanges")
    # Nothing to list yet is MediaWiki's 404; the guest reads the page, no permission error.
    assert recent.status_code in (200, 404) and "Recent changes" in recent.text
    assert "Permission error" not in recent.text and "Login required" not in recent.text
    refused = await _edit(client, "Guest page")
    assert refused["error"]["code"] == "permissiondenied", refused  # type: ignore[index]


async def test_guests_edit_where_the_organization_allows(
    data_dir: Path, sqlite_templates: Path
) -> None:
    copy_sqlite_templates(sqlite_templates, data_dir)
    settings = Settings(data_dir=data_dir, wiki_main_page=False, wiki_guest_edits=True)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        chat = app.state.services["chat"].state["runtime"]
        await chat.db.write(create_realm, "Zulip Dev", "zulip")
        members: Members = app.state.account_links
        await members.create("gus@example.com", "Gus", "gus-password-1", ROLE_GUEST)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            await wiki_sign_in(client, "Gus", "gus-password-1")
            done = await _edit(client, "Guest page")
            assert done["edit"]["result"] == "Success", done  # type: ignore[index]


async def test_a_deactivated_members_bot_password_is_out(workspace: Workspace) -> None:
    await workspace.member("olivia@example.com", "Olivia", ROLE_OWNER)
    maya = await workspace.member("maya@example.com", "Maya Lin")
    wiki_db = workspace.members.wiki_db()
    assert wiki_db is not None
    secret = await wiki_db.write(create_bot_password, maya.wiki_user_id, "tool", ["basic"])

    async def bot_login(client: httpx.AsyncClient) -> dict[str, object]:
        tokens = await client.get(
            "/w/api.php",
            params={"action": "query", "meta": "tokens", "type": "login", "format": "json"},
        )
        token = tokens.json()["query"]["tokens"]["logintoken"]
        done = await client.post(
            "/w/api.php",
            data={"action": "login", "lgname": "Maya Lin@tool", "lgpassword": secret,
                  "lgtoken": token, "format": "json"},
        )  # fmt: skip
        result: dict[str, object] = done.json()["login"]
        return result

    async with workspace.browser() as tool:
        assert (await bot_login(tool))["result"] == "Success"
        assert (await wiki_user(tool))["name"] == "Maya Lin"
        async with workspace.browser() as owner:
            await chat_sign_in(owner, "olivia@example.com")
            gone = await owner.delete(
                f"/json/users/{maya.chat_user_id}",
                headers={"X-CSRFToken": csrf_of(await owner.get("/"))},
            )
            assert gone.status_code == 200, gone.text
        # The tool's open session is anonymous now, and a new bot login is refused.
        assert (await wiki_user(tool)).get("anon") is True
        assert (await bot_login(tool))["result"] == "Failed"
