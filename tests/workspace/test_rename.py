"""The wiki user name changes only by an explicit rename, done as RenameUser does it; a full-name
change in the chat leaves it alone."""

from __future__ import annotations

import httpx
import pytest
from click.testing import CliRunner

from atrium.cli import main
from tests.workspace.conftest import Workspace
from tests.workspace.signing import chat_sign_in, csrf_of, wiki_refused, wiki_sign_in, wiki_user

pytestmark = pytest.mark.anyio


async def _edit(client: httpx.AsyncClient, title: str, text: str) -> None:
    tokens = await client.get(
        "/w/api.php", params={"action": "query", "meta": "tokens", "format": "json"}
    )
    token = tokens.json()["query"]["tokens"]["csrftoken"]
    done = await client.post(
        "/w/api.php",
        data={"action": "edit", "title": title, "text": text, "token": token, "format": "json"},
    )
    assert done.json()["edit"]["result"] == "Success", done.text


async def _page(client: httpx.AsyncClient, title: str) -> dict[str, object]:
    answer = await client.get(
        "/w/api.php",
        params={"action": "query", "titles": title, "prop": "info", "format": "json",
                "formatversion": "2"},
    )  # fmt: skip
    page: dict[str, object] = answer.json()["query"]["pages"][0]
    return page


async def test_a_chat_name_change_does_not_rename(workspace: Workspace) -> None:
    await workspace.member("maya@example.com", "Maya Lin")
    client = workspace.client
    await chat_sign_in(client, "maya@example.com")
    changed = await client.patch(
        "/json/settings",
        data={"full_name": "Maya Lin-Park"},
        headers={"X-CSRFToken": csrf_of(await client.get("/"))},
    )
    assert changed.status_code == 200, changed.text
    assert (await client.get("/json/users/me")).json()["full_name"] == "Maya Lin-Park"
    assert (await wiki_user(client))["name"] == "Maya Lin"


async def test_rename_moves_the_user_pages_and_keeps_the_sign_in(workspace: Workspace) -> None:
    await workspace.member("maya@example.com", "Maya Lin")
    client = workspace.client
    await wiki_sign_in(client, "Maya Lin")
    await _edit(client, "User:Maya Lin", "About me")
    await _edit(client, "User:Maya Lin/Notes", "My notes")
    await _edit(client, "Sandbox", "An edit of mine")
    env = {"ATRIUM_DATA_DIR": str(workspace.settings.data_dir)}
    done = CliRunner().invoke(main, ["wiki", "rename-user", "Maya Lin", "Maya Park"], env=env)
    assert done.exit_code == 0, done.output
    for old, new in (("User:Maya Lin", "User:Maya Park"), ("User:Maya Lin/Notes", "User:Maya Park/Notes")):  # fmt: skip
        assert (await _page(client, old)).get("redirect") is True
        assert not (await _page(client, new)).get("missing")
    history = await client.get(
        "/w/api.php",
        params={"action": "query", "titles": "Sandbox", "prop": "revisions", "rvprop": "user",
                "format": "json", "formatversion": "2"},
    )  # fmt: skip
    assert history.json()["query"]["pages"][0]["revisions"][0]["user"] == "Maya Park"
    async with workspace.browser() as again:
        assert wiki_refused(await wiki_sign_in(again, "Maya Lin"))
        assert (await chat_sign_in(again, "Maya Park")).status_code == 303
        assert (await wiki_user(again))["name"] == "Maya Park"
    refused = CliRunner().invoke(main, ["wiki", "rename-user", "Nobody", "Someone"], env=env)
    assert refused.exit_code == 1 and "There is no user by the name" in refused.output
