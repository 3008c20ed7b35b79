"""`action=move` refused for one or several reasons at once (MovePage::isValidMove, then
authorizeMove), and the bad requests ApiMove refuses before it: the whole error list, its codes,
keys and parameters, and the MediaWiki-API-Error header, in every error format, as MediaWiki 1.39
answered the same requests (`data/move_errors.json`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

FIXTURE = json.loads((Path(__file__).parent / "data" / "move_errors.json").read_text())
CASES: dict[str, Any] = FIXTURE["cases"]
FORMATS: dict[str, dict[str, str]] = FIXTURE["formats"]

# The reference's pages, as its recording script made them.
PAGES = {
    "Mverr source": "source text",
    "Mverr occupied": "occupied text",
    "File:Mverr picture.png": "a file description page without a file",
    "File:Mverr occupied.png": "occupied file page",
    "Mverr guarded": "move protected",
    "Mverr locked": "edit protected",
    "Category:Mverr cat": "a category",
    "User:Mverr Alice": "a user page",
    "Mverr other": "other",
    "Mverr redirect": "#REDIRECT [[Mverr other]]",
}
PROTECTIONS = {
    "Mverr guarded": "move=sysop",
    "Mverr locked": "edit=sysop|move=sysop",
    "Mverr salted": "create=sysop",
    "Mverr semisalted": "create=autoconfirmed",
}


async def _seed(wiki: WikiHarness) -> None:
    for title, text in PAGES.items():
        await wiki.edit_page(title, text)
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        token = await wiki.csrf(admin)
        for title, protections in PROTECTIONS.items():
            done = await wiki.post(
                admin, action="protect", title=title, protections=protections, token=token
            )
            assert "protect" in done, done


def _without_docref(body: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    where = body.get("error", body)
    key = "*" if "*" in where else "docref"
    found = isinstance(where.pop(key, None), str)
    return body, found


@pytest.mark.parametrize("name", sorted(CASES))
async def test_move_refusals_match_reference(wiki: WikiHarness, name: str) -> None:
    case = CASES[name]
    await _seed(wiki)
    async with wiki.client() as client:
        if case["user"] is not None:
            await wiki.login(client, case["user"])
        token = await wiki.csrf(client)
        for fmt, extra in FORMATS.items():
            data = {"action": "move", "format": "json", **case["request"], **extra, "token": token}
            response = await client.post("/w/api.php", data=data)
            body, has_docref = _without_docref(response.json())
            assert has_docref, (fmt, body)
            assert body == case["responses"][fmt], (fmt, json.dumps(body))
            assert response.headers["MediaWiki-API-Error"] == case["header"], fmt
    # Nothing moved.
    source = case["request"].get("from")
    if source is not None and not source.startswith(("Bad", "Mverr nosuch")):
        async with wiki.client() as reader:
            pages = await wiki.api(reader, action="query", titles=source, formatversion="2")
        assert "missing" not in pages["query"]["pages"][0]
