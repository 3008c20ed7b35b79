"""What clients detect a wiki by: the generator and EditURI in every page head, action=rsd, a
Main Page on a new wiki, uploadsenabled; and request bodies as clients really send them."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.server import create_app
from atrium.settings import Settings

pytestmark = pytest.mark.anyio


async def test_page_heads_name_generator_and_api(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Somewhere", "text")
    for path in (
        "/wiki/Somewhere",
        "/wiki/Not_there",
        "/w/index.php?title=Somewhere&action=history",
    ):
        page = await client.get(path)
        assert '<meta name="generator" content="MediaWiki 1.39.17"/>' in page.text, path
        assert (
            '<link rel="EditURI" type="application/rsd+xml" '
            'href="http://127.0.0.1:8080/w/api.php?action=rsd"/>'
        ) in page.text


async def test_rsd(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    response = await client.get("/w/api.php", params={"action": "rsd"})
    assert response.headers["content-type"] == "application/rsd+xml; charset=utf-8"
    assert 'apiLink="http://127.0.0.1:8080/w/api.php"' in response.text
    assert (
        '<homePageLink xml:space="preserve">http://127.0.0.1:8080/wiki/Main_Page<' in response.text
    )
    info = await wiki.api(client, action="paraminfo", modules="rsd")
    assert info["paraminfo"]["modules"][0]["classname"] == "ApiRsd"


async def test_uploads_enabled(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await wiki.api(client, action="query", meta="siteinfo", formatversion="2")
    assert data["query"]["general"]["uploadsenabled"] is True


async def test_new_wiki_has_a_main_page(data_dir: Path, database_url: str | None) -> None:
    settings = Settings(
        data_dir=data_dir, database_url=database_url, port=8080, wiki_audience="edit"
    )
    app = create_app(settings, services=("wiki",))
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 1))
    client = httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080")
    async with app.router.lifespan_context(app), client as c:
        page = await c.get("/wiki/Main_Page")
        assert page.status_code == 200
        assert "This wiki is ready." in page.text
        data = (
            await c.get(
                "/w/api.php",
                params={
                    "action": "query",
                    "titles": "Main Page",
                    "prop": "revisions",
                    "rvprop": "user",
                    "format": "json",
                    "formatversion": "2",
                },
            )
        ).json()
        assert data["query"]["pages"][0]["revisions"][0]["user"] == "MediaWiki default"


async def test_multipart_with_lf_line_endings(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    body = (
        '--XyZ\nContent-Disposition: form-data; name="action"\n\nquery\n'
        '--XyZ\nContent-Disposition: form-data; name="meta"\n\nsiteinfo\n'
        '--XyZ\nContent-Disposition: form-data; name="file"; filename="a.bin"\n'
        "Content-Type: application/octet-stream\n\n\x00\r\n\nraw\n"
        '--XyZ\nContent-Disposition: form-data; name="format"\n\njson\n--XyZ--\n'
    )
    response = await client.post(
        "/w/api.php",
        content=body.encode(),
        headers={"content-type": "multipart/form-data; boundary=XyZ"},
    )
    assert response.json()["query"]["general"]["generator"] == "MediaWiki 1.39.17"


async def test_malformed_multipart_answers_in_the_api_envelope(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    for content_type in ("multipart/form-data; boundary=XyZ", "multipart/form-data"):
        response = await client.post(
            "/w/api.php?action=edit&format=json",
            content=b"--XyZ\ngarbage",
            headers={"content-type": content_type},
        )
        assert response.status_code == 200
        assert response.json()["error"]["code"] == "missingparam"
