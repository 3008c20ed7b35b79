"""Paragraphs around block-level output: a thumbnail, a `<div>`, `<center>` or a
blockquote in the middle of a line closes the paragraph before it and text after it gets one of
its own, blank lines give `</p><p>` and `<p><br />`, indented lines `<pre>` — the page HTML
compared with MediaWiki 1.39's action=parse output for the same wikitext
(data/paragraph_cases.json)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

DATA = Path(__file__).parent / "data"
CASES = json.loads((DATA / "paragraph_cases.json").read_text())["cases"]


async def test_paragraphs_as_mediawiki(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    gray = (DATA / "media" / "gray.png").read_bytes()
    done = await client.post(
        "/w/api.php",
        data={"action": "upload", "filename": "Meta9 gray.png", "token": token, "format": "json"},
        files={"file": ("Meta9 gray.png", gray, "application/octet-stream")},
    )
    assert done.json()["upload"]["result"] == "Success"
    for n, case in enumerate(CASES):
        title = f"Paragraphs_{n}"
        await wiki.edit_page(title, case["wikitext"])
        response = await client.get(f"/wiki/{title}")
        assert response.status_code == 200
        page = response.text
        body = page[page.index('<div class="mw-parser-output">') :]
        assert body.startswith(case["html"]), case["wikitext"]
