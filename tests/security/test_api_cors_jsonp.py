"""api.php across origins: a look-alike host that merely starts with the site's URL must not get
credentialed CORS (it used to: a full account takeover), listed origins must, and a JSONP
callback can only name a function (it used to run any code, a way around the pages' CSP)."""

from __future__ import annotations

import httpx
import pytest

from atrium.wiki.api import cors
from tests.wiki.conftest import WikiHarness, client, wiki

pytestmark = pytest.mark.anyio


@pytest.fixture
def service_under_test() -> str:
    """The database these tests get is the wiki's."""
    return "wiki"


__all__ = ["client", "wiki"]


async def _userinfo(client: httpx.AsyncClient, origin: str) -> httpx.Response:
    return await client.get(
        "/w/api.php",
        params={"action": "query", "meta": "userinfo", "format": "json", "origin": origin},
        headers={"Origin": origin},
    )


@pytest.mark.parametrize(
    "origin",
    [
        "http://127.0.0.1:8080.evil.example",
        "http://127.0.0.1:80801",
        "https://127.0.0.1:8080",
        "http://127.0.0.1",
        "http://127.0.0.1:8080@evil.example",
    ],
)
async def test_look_alike_origins_get_no_cors(
    wiki: WikiHarness, client: httpx.AsyncClient, origin: str
) -> None:
    await wiki.login(client, "Admin")
    response = await _userinfo(client, origin)
    assert "access-control-allow-origin" not in response.headers
    assert "access-control-allow-credentials" not in response.headers


async def test_own_origin_gets_credentialed_cors(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Admin")
    response = await _userinfo(client, "http://127.0.0.1:8080")
    assert response.headers["access-control-allow-origin"] == "http://127.0.0.1:8080"
    assert response.headers["access-control-allow-credentials"] == "true"
    assert response.json()["query"]["userinfo"]["name"] == "Admin"


async def test_listed_origins_are_matched_whole(wiki: WikiHarness) -> None:
    wiki.site.cors_origins = ("https://tools.example.org",)
    try:
        assert cors.allowed("https://tools.example.org", wiki.site)
        assert cors.allowed("https://TOOLS.example.org:443", wiki.site)
        assert not cors.allowed("https://tools.example.org.evil.example", wiki.site)
        assert not cors.allowed("http://tools.example.org", wiki.site)
        assert not cors.allowed("https://tools.example.org:8443", wiki.site)
        assert not cors.allowed("null", wiki.site)
    finally:
        wiki.site.cors_origins = ()


async def test_jsonp_callback_names_a_function_only(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    response = await client.get(
        "/w/api.php",
        params={
            "action": "query",
            "meta": "siteinfo",
            "format": "json",
            "callback": "alert(document.domain)//",
        },
    )
    assert response.text.startswith("/**/alertdocument.domain(")
    assert response.headers["x-content-type-options"] == "nosniff"
    good = await client.get(
        "/w/api.php",
        params={"action": "query", "meta": "userinfo", "format": "json", "callback": "cb.x[0]"},
    )
    assert good.text.startswith("/**/cb.x[0]({")


async def test_jsonp_answers_are_anonymous(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    response = await client.get(
        "/w/api.php",
        params={"action": "query", "meta": "userinfo", "format": "json", "callback": "cb"},
    )
    assert '"anon"' in response.text
    assert "Admin" not in response.text
