"""`[[File:…|class=…]]` cannot break out of the `class` attribute: a quote in the option stays
inside the value, so no handler or `srcset` reaches the `<img>`, in pages and in action=parse."""

from __future__ import annotations

import io
import re

import httpx
import pytest
from PIL import Image

from tests.wiki import conftest as wiki_conftest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

service_under_test = wiki_conftest.service_under_test
wiki = wiki_conftest.wiki
client = wiki_conftest.client

INJECTION = '[[File:Big.png|40px|class=x"onmouseover="alert(1)"srcset="https://evil.example/x.png]]'


async def test_class_option_stays_inside_its_attribute(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Alice")
    out = io.BytesIO()
    Image.new("RGB", (100, 50), (1, 2, 3)).save(out, format="PNG")
    token = await wiki.csrf(client)
    await client.post(
        "/w/api.php",
        data={"action": "upload", "filename": "Big.png", "token": token, "format": "json"},
        files={"file": ("Big.png", out.getvalue(), "image/png")},
    )
    await wiki.edit_page("ClassInject", INJECTION)
    page = (await client.get("/wiki/ClassInject")).text
    parsed = await wiki.api(client, action="parse", page="ClassInject", prop="text")
    for html in (page, parsed["parse"]["text"]["*"]):
        images = re.findall(r"<img [^>]*>", html)
        assert len(images) == 1
        assert " onmouseover=" not in images[0]
        assert "evil.example" not in images[0].split('class="', 1)[0]
