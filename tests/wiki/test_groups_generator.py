"""MediaWiki's shapes for an unknown generator (`badgenerator`) and for group lists (`*`)."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


async def test_unknown_generator(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    for name in ("nosuch", "siteinfo"):  # unknown, and a module that is no generator
        data = await wiki.api(client, action="query", generator=name)
        assert data["error"]["code"] == "badgenerator", data
        assert data["error"]["info"] == f'Unknown "generator={name}".'
    data = await wiki.api(client, action="query", generator="allpages")
    assert "error" not in data


async def test_group_lists_include_star(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    users = await wiki.api(
        client, action="query", list="users", ususers="Admin", usprop="groups|implicitgroups"
    )
    admin = users["query"]["users"][0]
    assert admin["groups"][-3:] == ["*", "user", "autoconfirmed"]
    assert admin["implicitgroups"] == ["*", "user", "autoconfirmed"]
    everyone = await wiki.api(
        client, action="query", list="allusers", auprop="groups", aufrom="Admin", aulimit="1"
    )
    assert everyone["query"]["allusers"][0]["groups"][:3] == ["*", "user", "autoconfirmed"]
