"""The site root (`/`, the chat's page) lets a client given the bare host find the wiki: it
carries MediaWiki's generator meta and RSD (`EditURI`) link, as every wiki page does, and the
RSD document they lead to names the API. pywikibot's own page parser reads them here; the e2e
module runs `generate_family_file` on the bare host."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import httpx
import pytest
from pywikibot.site_detect import WikiHTMLPageParser
from tests.conftest import copy_sqlite_templates

from atrium.server import create_app
from atrium.settings import Settings

pytestmark = pytest.mark.anyio
BASE = "http://127.0.0.1:8080"


async def _root(data_dir: Path, sqlite_templates: Path, services: tuple[str, ...]) -> str:
    copy_sqlite_templates(sqlite_templates, data_dir)
    settings = Settings(data_dir=data_dir, port=8080, migrate_on_start=False)
    app = create_app(settings, services=services)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 12345))
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
            root = await client.get("/")
            assert root.status_code == 200
            if "wiki" in services:
                rsd = await client.get("/w/api.php?action=rsd")
                tree = ElementTree.fromstring(rsd.content)
                apis = tree.findall(".//{http://archipelago.phrasewise.com/rsd}api")
                assert apis and apis[0].get("apiLink") == f"{BASE}/w/api.php"
            return root.text


async def test_root_names_the_wiki(tmp_path: Path, sqlite_templates: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    page = await _root(data_dir, sqlite_templates, ("chat", "wiki"))
    parser = WikiHTMLPageParser(BASE + "/")
    parser.feed(page)
    assert parser.generator == "MediaWiki 1.39.17"
    assert str(parser.version) == "1.39.17"
    assert (parser.server, parser.scriptpath) == (BASE, "/w")


async def test_chat_alone_names_no_wiki(tmp_path: Path, sqlite_templates: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    page = await _root(data_dir, sqlite_templates, ("chat",))
    assert "EditURI" not in page and 'name="generator"' not in page
