"""Members made by the chat itself (an administrator's POST /users, an invitation's sign-up)
get their identity and wiki user at once; wiki-only accounts stay possible where the wiki's
audience lets visitors register, and stay out of the chat."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from atrium.chat.actions.realm import create_realm
from atrium.chat.models import ROLE_ADMINISTRATOR
from atrium.server import create_app
from atrium.settings import Settings
from atrium.workspace import identities
from tests.conftest import copy_sqlite_templates
from tests.wiki.web_forms import hidden
from tests.workspace.conftest import Workspace
from tests.workspace.signing import chat_sign_in, csrf_of, wiki_sign_in, wiki_user

pytestmark = pytest.mark.anyio


async def test_a_user_made_through_the_api_is_a_member(workspace: Workspace) -> None:
    await workspace.member("adam@example.com", "Adam", ROLE_ADMINISTRATOR)
    client = workspace.client
    await chat_sign_in(client, "adam@example.com")
    made = await client.post(
        "/json/users",
        data={"email": "ivy@example.com", "password": "ivy-password-1", "full_name": "Ivy Stone"},
        headers={"X-CSRFToken": csrf_of(await client.get("/"))},
    )
    assert made.status_code == 200, made.text
    identity = await workspace.members.core_db.read(identities.by_email, "ivy@example.com")
    accounts = await workspace.members.core_db.read(identities.accounts, identity["id"])
    assert accounts["chat"]["user_id"] == made.json()["user_id"]
    assert accounts["wiki"]["name"] == "Ivy Stone" and accounts["wiki"]["user_id"]
    async with workspace.browser() as ivy:
        assert (await wiki_sign_in(ivy, "Ivy Stone", "ivy-password-1")).status_code == 302
        assert (await ivy.get("/json/users/me")).json()["user_id"] == made.json()["user_id"]


async def test_a_failed_api_creation_sets_no_ones_password(workspace: Workspace) -> None:
    await workspace.member("adam@example.com", "Adam", ROLE_ADMINISTRATOR)
    await workspace.member("maya@example.com", "Maya Lin")
    client = workspace.client
    await chat_sign_in(client, "adam@example.com")
    taken = await client.post(
        "/json/users",
        data={"email": "maya@example.com", "password": "adams-choice-1", "full_name": "Maya"},
        headers={"X-CSRFToken": csrf_of(await client.get("/"))},
    )
    assert taken.status_code == 400
    async with workspace.browser() as other:
        assert (await chat_sign_in(other, "maya@example.com", "adams-choice-1")).status_code == 401
        assert (await chat_sign_in(other, "maya@example.com")).status_code == 303


async def test_wiki_only_accounts_where_the_audience_allows(
    data_dir: Path, sqlite_templates: Path
) -> None:
    copy_sqlite_templates(sqlite_templates, data_dir)
    settings = Settings(data_dir=data_dir, wiki_main_page=False, wiki_audience="edit")
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        chat = app.state.services["chat"].state["runtime"]
        await chat.db.write(create_realm, "Zulip Dev", "zulip")
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            url = "/w/index.php?title=Special:CreateAccount"
            token = hidden((await client.get(url)).text, "wpCreateaccountToken")
            made = await client.post(
                url,
                data={"wpName": "Outside Editor", "wpPassword": "outside-pass-42",
                      "retype": "outside-pass-42", "wpCreateaccountToken": token},
            )  # fmt: skip
            assert made.status_code == 302, made.text
            assert (await wiki_user(client))["name"] == "Outside Editor"
            # A wiki account, and nothing in the chat.
            assert (await client.get("/json/users/me")).status_code == 401
            assert (
                await chat_sign_in(client, "Outside Editor", "outside-pass-42")
            ).status_code == 401


async def test_an_invitation_makes_a_member(workspace: Workspace) -> None:
    await workspace.member("adam@example.com", "Adam", ROLE_ADMINISTRATOR)
    client = workspace.client
    await chat_sign_in(client, "adam@example.com")
    headers = {"X-CSRFToken": csrf_of(await client.get("/"))}
    made = await client.post(
        "/json/users/me/subscriptions",
        data={"subscriptions": '[{"name": "welcome"}]'},
        headers=headers,
    )
    assert made.status_code == 200, made.text
    streams = (await client.get("/json/streams")).json()["streams"]
    stream_id = next(s["stream_id"] for s in streams if s["name"] == "welcome")
    invited = await client.post(
        "/json/invites/multiuse", data={"stream_ids": f"[{stream_id}]"}, headers=headers
    )
    assert invited.status_code == 200, invited.text
    path = invited.json()["invite_link"].removeprefix(workspace.settings.base_url)
    async with workspace.browser() as newcomer:
        form = await newcomer.get(path)
        token = hidden(form.text, "csrf_token")
        joined = await newcomer.post(
            path,
            data={"csrf_token": token, "email": "nia@example.com", "full_name": "Nia Cole",
                  "password": "nia-password-1"},
        )  # fmt: skip
        assert joined.status_code == 200, joined.text
        assert (await wiki_sign_in(newcomer, "Nia Cole", "nia-password-1")).status_code == 302
        assert (await newcomer.get("/json/users/me")).json()["email"] == "nia@example.com"
