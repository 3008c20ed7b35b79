"""An edit's block and protection checks run inside the edit's own transaction: a block or a
protection that commits after the API has read everything it reads before the write, but before
the write itself, still refuses the edit (no check-then-act window)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.changes.pages import edit_page

pytestmark = pytest.mark.anyio


def _before_edit_write(
    wiki: WikiHarness, monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[], Awaitable[Any]]
) -> list[str]:
    """Run `meanwhile` (its own requests, committed) right before the edit's write transaction."""
    database = type(wiki.db)  # the service's own handle is another instance of this class
    write = database.write
    seen: list[str] = []

    async def racing_write(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        if fn is edit_page and not seen:
            seen.append("edit")
            await meanwhile()
        return await write(self, fn, *args, **kwargs)

    monkeypatch.setattr(database, "write", racing_write)
    return seen


async def _edit_as_alice(wiki: WikiHarness, **params: Any) -> Any:
    async with wiki.client() as alice:
        await wiki.login(alice, "Alice")
        token = await wiki.csrf(alice)
        return await wiki.post(alice, action="edit", token=token, **params)


async def test_a_block_landing_before_the_write_refuses_the_edit(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await wiki.edit_page("Apple", "apple")
    await wiki.login(client, "Admin")
    admin_token = await wiki.csrf(client)

    async def block_alice() -> None:
        done = await wiki.post(client, action="block", user="Alice", reason="r", token=admin_token)
        assert "block" in done, done

    seen = _before_edit_write(wiki, monkeypatch, block_alice)
    refused = await _edit_as_alice(wiki, title="Apple", appendtext="x")
    assert seen == ["edit"]
    assert refused["error"]["code"] == "blocked"
    assert refused["error"]["info"] == "You have been blocked from editing."
    assert refused["error"]["blockinfo"]["blockedby"] == "Admin"
    text = await wiki.api(
        client, action="query", prop="revisions", titles="Apple", rvprop="content"
    )
    page = next(iter(text["query"]["pages"].values()))
    assert page["revisions"][0]["*"] == "apple"


async def test_a_protection_landing_before_the_write_refuses_the_edit(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await wiki.edit_page("Apple", "apple")
    await wiki.login(client, "Admin")
    admin_token = await wiki.csrf(client)

    async def protect_apple() -> None:
        done = await wiki.post(
            client, action="protect", title="Apple", protections="edit=sysop", token=admin_token
        )
        assert "protect" in done, done

    seen = _before_edit_write(wiki, monkeypatch, protect_apple)
    refused = await _edit_as_alice(wiki, title="Apple", appendtext="x")
    assert seen == ["edit"]
    assert refused["error"]["code"] == "protectedpage"
    # The administrator's own edit of the protected page still goes through.
    done = await wiki.post(client, action="edit", title="Apple", appendtext="!", token=admin_token)
    assert done["edit"]["result"] == "Success"


async def test_a_title_protected_before_the_write_refuses_the_creation(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await wiki.login(client, "Admin")
    admin_token = await wiki.csrf(client)

    async def protect_title() -> None:
        done = await wiki.post(
            client, action="protect", title="New page", protections="create=sysop",
            token=admin_token,
        )  # fmt: skip
        assert "protect" in done, done

    _before_edit_write(wiki, monkeypatch, protect_title)
    refused = await _edit_as_alice(wiki, title="New page", text="x")
    assert (
        refused["error"]["code"] == "protectedpage"
    )  # as MediaWiki 1.39 answers a create-protected title
