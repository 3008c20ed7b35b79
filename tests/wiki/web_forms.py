"""Helpers for the browser-page tests: read a form's hidden fields and sign in through
`Special:UserLogin` as a browser does."""

from __future__ import annotations

import re

import httpx
from tests.wiki.conftest import PASSWORDS

LOGIN = "/w/index.php?title=Special:UserLogin"


def hidden(page: str, name: str) -> str:
    """The value of the hidden input `name` in a page's HTML."""
    match = re.search(
        rf'<input type="hidden" (?:value="([^"]*)" name="{name}"|name="{name}" value="([^"]*)")',
        page,
    )
    assert match is not None, f"no hidden {name}"
    return match.group(1) if match.group(1) is not None else match.group(2)


async def sign_in(
    client: httpx.AsyncClient, name: str, password: str | None = None
) -> httpx.Response:
    form = await client.get(LOGIN)
    token = hidden(form.text, "wpLoginToken")
    return await client.post(
        LOGIN,
        data={
            "wpName": name,
            "wpPassword": password if password is not None else PASSWORDS[name],
            "wpLoginToken": token,
            "wploginattempt": "Log in",
        },
    )
