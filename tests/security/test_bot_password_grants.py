"""A bot password's grants bound every right its session uses, `userrights` included: a
`basic`-only bot password of a bureaucrat must not hand out groups."""

from __future__ import annotations

import httpx
import pytest

from atrium.wiki.changes.accounts import create_bot_password, create_user
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


@pytest.fixture
def service_under_test() -> str:
    return "wiki"


async def _bot_login(
    wiki: WikiHarness, client: httpx.AsyncClient, user: str, app: str, grants: list[str]
) -> None:
    user_id = await wiki._user_id(user)
    password = await wiki.db.write(lambda conn: create_bot_password(conn, user_id, app, grants))
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    done = await wiki.post(
        client, action="login", lgname=f"{user}@{app}", lgpassword=password, lgtoken=token
    )
    assert done["login"]["result"] == "Success", done


async def _groups(wiki: WikiHarness, client: httpx.AsyncClient, name: str) -> list[str]:
    data = await wiki.api(client, action="query", list="users", ususers=name, usprop="groups")
    groups: list[str] = data["query"]["users"][0]["groups"]
    return groups


async def test_basic_bot_password_of_a_bureaucrat_cannot_grant_groups(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.db.write(lambda conn: create_user(conn, "Mallory", "mallory-password-1"))
    await _bot_login(wiki, client, "Admin", "ro", ["basic"])
    token = (await wiki.api(client, action="query", meta="tokens", type="userrights"))["query"][
        "tokens"
    ]["userrightstoken"]
    refused = await wiki.post(
        client, action="userrights", user="Mallory", add="sysop|bureaucrat|suppress", token=token
    )
    assert refused["error"]["code"] == "permissiondenied", refused
    assert not {"sysop", "bureaucrat", "suppress"} & set(await _groups(wiki, client, "Mallory"))


async def test_bureaucrat_password_session_still_changes_groups(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.db.write(lambda conn: create_user(conn, "Mallory", "mallory-password-1"))
    await wiki.login(client, "Admin")
    token = (await wiki.api(client, action="query", meta="tokens", type="userrights"))["query"][
        "tokens"
    ]["userrightstoken"]
    done = await wiki.post(client, action="userrights", user="Mallory", add="sysop", token=token)
    assert done["userrights"]["added"] == ["sysop"], done
    assert "sysop" in await _groups(wiki, client, "Mallory")
