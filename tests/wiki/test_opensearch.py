"""`action=opensearch`: title suggestions in the OpenSearch format, as the header search box and
browsers' search providers ask for them."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


async def _search(client: httpx.AsyncClient, **params: str) -> httpx.Response:
    return await client.get("/w/api.php", params={"action": "opensearch", **params})


async def test_suggestions_in_the_opensearch_shape(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    for title in ("Apple", "Apple pie", "Apricot", "Banana", "Help:Apple help"):
        await wiki.edit_page(title, "text")
    await wiki.edit_page("Applesauce", "#REDIRECT [[Apple pie]]")
    response = await _search(client, search="ap")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert "content-disposition" not in response.headers
    query, titles, descriptions, urls = response.json()
    assert query == "ap"
    assert titles == ["Apple", "Apple pie", "Applesauce", "Apricot"]
    assert descriptions == ["", "", "", ""]
    assert urls[1].endswith("/wiki/Apple_pie")
    limited = (await _search(client, search="Ap", limit="2")).json()
    assert limited[1] == ["Apple", "Apple pie"]
    # Redirects resolved to their targets, each once.
    resolved = (await _search(client, search="Apple", redirects="resolve")).json()
    assert resolved[1] == ["Apple", "Apple pie"]
    # Another namespace, by prefix or by parameter.
    assert (await _search(client, search="Help:App")).json()[1] == ["Help:Apple help"]
    assert (await _search(client, search="App", namespace="12")).json()[1] == ["Help:Apple help"]
    assert (await _search(client, search="Zzz")).json() == ["Zzz", [], [], []]


async def test_bad_input_gets_the_api_error(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    missing = (await _search(client)).json()
    assert missing["error"]["code"] == "missingparam"
    too_many = (await _search(client, search="a", limit="101")).json()
    assert too_many[0] == "a"  # clamped to 100 with a warning, as MediaWiki does
    bad = (await _search(client, search="a", redirects="sideways")).json()
    assert bad["error"]["code"] == "badvalue"
    hostile = (await _search(client, search="<script>[[x")).json()
    assert hostile == ["<script>[[x", [], [], []]
    info = await wiki.api(client, action="paraminfo", modules="opensearch", formatversion="2")
    names = [p["name"] for p in info["paraminfo"]["modules"][0]["parameters"]]
    assert names[:3] == ["search", "namespace", "limit"]
