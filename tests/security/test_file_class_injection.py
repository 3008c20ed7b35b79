"""`[[File:…|class=…]]` used to be written into `<img>` unescaped, so an editor could add event
handlers and a `srcset` pointing anywhere, in pages and in action=parse (whose HTML other clients
show without the pages' CSP). Class names are now reduced as Sanitizer::escapeClass does."""

from __future__ import annotations

import io
import re

import httpx
import pytest
from PIL import Image

from atrium.wiki.wikitext.html.media import escape_class
from tests.wiki.conftest import WikiHarness, client, wiki

pytestmark = pytest.mark.anyio


@pytest.fixture
def service_under_test() -> str:
    """The database these tests get is the wiki's."""
    return "wiki"


__all__ = ["client", "wiki"]

INJECTION = '[[File:Big.png|40px|class=x"onmouseover="alert(1)"srcset="https://evil.example/x.png]]'


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (200, 100), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


async def _upload(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    response = await client.post(
        "/w/api.php",
        data={
            "action": "upload",
            "filename": "Big.png",
            "token": await wiki.csrf(client),
            "ignorewarnings": "1",
            "format": "json",
        },
        files={"file": ("Big.png", _png(), "image/png")},
    )
    assert response.json()["upload"]["result"] == "Success", response.text


def _img_tags(text: str) -> list[str]:
    return re.findall(r"<img [^>]*>", text)


async def test_class_option_cannot_add_attributes(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _upload(wiki, client)
    await wiki.edit_page("ClassInject", INJECTION)
    page = (await client.get("/wiki/ClassInject")).text
    parsed = await wiki.api(client, action="parse", page="ClassInject", prop="text")
    for html in (page, parsed["parse"]["text"]["*"]):
        (img,) = _img_tags(html.split('id="mw-content-text"')[-1])
        assert not re.search(r"\sonmouseover=", img)
        assert "https://evil.example" not in img
        assert 'class="x_onmouseover_alert_1_srcset_https_evil_example_x_png"' in img


def test_escape_class_as_mediawiki() -> None:
    assert escape_class("thumb-big") == "thumb-big"
    assert escape_class("1st") == "_st"
    assert escape_class('a"b<c>d&e') == "a_b_c_d_e"
    assert escape_class("naïve") == "naïve"
    assert escape_class('"""') == ""
