"""Signing in and out through either service's form, as a browser does."""

from __future__ import annotations

import re

import httpx

from tests.wiki.web_forms import hidden
from tests.workspace.conftest import PASSWORD

WIKI_LOGIN = "/w/index.php?title=Special:UserLogin"


async def chat_sign_in(
    client: httpx.AsyncClient, login: str, password: str = PASSWORD
) -> httpx.Response:
    form = await client.get("/login")
    token = hidden(form.text, "csrf_token")
    return await client.post(
        "/login", data={"username": login, "password": password, "csrf_token": token}
    )


async def wiki_sign_in(
    client: httpx.AsyncClient, login: str, password: str = PASSWORD
) -> httpx.Response:
    form = await client.get(WIKI_LOGIN)
    token = hidden(form.text, "wpLoginToken")
    return await client.post(
        WIKI_LOGIN, data={"wpName": login, "wpPassword": password, "wpLoginToken": token}
    )


def wiki_refused(response: httpx.Response) -> bool:
    """Special:UserLogin refused the password: the form again, at 200 as MediaWiki 1.39."""
    return response.status_code == 200 and "Incorrect username or password" in response.text


async def wiki_user(
    client: httpx.AsyncClient, uiprop: str = "centralids|groups"
) -> dict[str, object]:
    answer = await client.get(
        "/w/api.php",
        params={"action": "query", "meta": "userinfo", "uiprop": uiprop, "format": "json",
                "formatversion": "2"},
    )  # fmt: skip
    body = answer.json()
    if body.get("error", {}).get("code") == "readapidenied":
        # The private wiki (the default audience) answers anonymous callers nothing else.
        return {"anon": True}
    info: dict[str, object] = body["query"]["userinfo"]
    return info


async def change_address_on_chat(client: httpx.AsyncClient, address: str) -> None:
    """Ask for a new address in the chat's settings, as its web client does."""
    csrf = csrf_of(await client.get("/"))
    changed = await client.patch(
        "/json/settings", data={"email": address}, headers={"X-CSRFToken": csrf}
    )
    assert changed.json()["result"] == "success", changed.text


def csrf_of(page: httpx.Response) -> str:
    match = re.search(r'<meta name="csrf-token" content="([^"]+)">', page.text)
    assert match is not None, page.text
    return match.group(1)
