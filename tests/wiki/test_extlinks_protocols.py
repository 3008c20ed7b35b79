"""External links of every $wgUrlProtocols protocol reach the link tables, and only those."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

LINKS = (
    "http://example.org/search-me",
    "ssh://example.org",
    "git://example.org/repo",
    "irc://irc.example.org/chan",
    "sftp://files.example.org/x",
    "mailto:me@example.org",
)


async def test_every_protocol_is_recorded(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    text = " ".join(f"[{url} label]" for url in LINKS) + " [javascript:alert(1) no] [uwu://x no]"
    await wiki.edit_page("Linked", text)
    data = await wiki.api(client, action="query", prop="extlinks", titles="Linked", ellimit="max")
    page = next(iter(data["query"]["pages"].values()))
    assert sorted(link["*"] for link in page["extlinks"]) == sorted(LINKS)
    data = await wiki.api(
        client, action="query", prop="extlinks", titles="Linked", elprotocol="ssh"
    )
    page = next(iter(data["query"]["pages"].values()))
    assert [link["*"] for link in page["extlinks"]] == ["ssh://example.org"]
    data = await wiki.api(
        client, action="query", prop="extlinks", titles="Linked", elprotocol="uwu"
    )
    assert data["error"]["code"] == "badvalue"


async def test_rendered_as_links_without_scripts(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    data = await wiki.api(
        client,
        action="parse",
        title="P",
        text="[ssh://example.org shell] [javascript:alert(1) no]",
        prop="text|externallinks",
    )
    body = data["parse"]["text"]["*"]
    assert '<a rel="nofollow" class="external text" href="ssh://example.org">shell</a>' in body
    assert 'href="javascript' not in body
    assert data["parse"]["externallinks"] == ["ssh://example.org"]
