"""`meta=filerepoinfo`: the local repository as MediaWiki 1.39 describes its own (the keys in
FileRepo::getInfo's order, relative file URLs, the site's name, `canUpload` as uploads are on),
in both format versions; the XML layout is compared with the recorded one by
test_api_formats.py (`filerepoinfo` in data/mw139_xml_format.json)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

RECORDED = json.loads((Path(__file__).parent / "data" / "mw139_xml_format.json").read_text())


async def test_local_repository(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    recorded = RECORDED["filerepoinfo"]["xml"]
    keys = re.findall(r' (\w+)="', recorded.split("<repo", 1)[1].split("/>", 1)[0])
    fv2 = await wiki.api(client, action="query", meta="filerepoinfo", formatversion="2")
    [repo] = fv2["query"]["repos"]
    # MediaWiki's install has uploads off, so its `canUpload` (last) is false and left out.
    assert list(repo) == [*keys, "canUpload"]
    assert repo["name"] == "local" and repo["displayname"] == wiki.site.sitename
    assert repo["url"] == repo["rootUrl"] == "/images" and repo["thumbUrl"] == "/images/thumb"
    assert repo["local"] is True and repo["initialCapital"] is True
    assert repo["canUpload"] is (wiki.site.files_dir is not None)
    assert repo["scriptDirUrl"] == "/w" and repo["favicon"].endswith("/favicon.ico")
    fv1 = await wiki.api(client, action="query", meta="filerepoinfo", friprop="name|local")
    assert fv1["query"]["repos"] == [{"name": "local", "local": ""}]
    bad = await wiki.api(client, action="query", meta="filerepoinfo", friprop="nonsense")
    assert bad["warnings"]["filerepoinfo"]["*"].startswith("Unrecognized value for parameter")
    assert bad["query"]["repos"] == [{}]
