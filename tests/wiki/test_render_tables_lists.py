"""Tables, lists and file sizes as MediaWiki 1.39 renders them: wikitext tables with
`<tbody>`, captions, header and data cells, attributes, nested and indented tables; lists through
the block-level pass (nested and mixed, definition lists, after a paragraph line, blank lines
between items); `[[File:…|500px]]` larger than the file (a plain image scaled up in its attributes,
a thumb or frameless one not) — each page compared with the reference's action=parse HTML for the
same wikitext (data/table_list_cases.json). JPEGs turned a quarter by their EXIF Orientation have
their width and height swapped as the reference records them, in imageinfo, thumbnails and pages."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

DATA = Path(__file__).parent / "data"
REFERENCE: dict[str, Any] = json.loads((DATA / "table_list_cases.json").read_text())
# The test JPEGs are 40x20, red with a blue 10x5 block at the top left before turning.


async def _upload(wiki: WikiHarness, client: httpx.AsyncClient, name: str, data: bytes) -> Any:
    token = await wiki.csrf(client)
    done = await client.post(
        "/w/api.php",
        data={"action": "upload", "filename": name, "token": token, "format": "json"},
        files={"file": (name, data, "application/octet-stream")},
    )
    assert done.json()["upload"]["result"] == "Success", done.json()
    return done.json()["upload"]["imageinfo"]


@pytest.mark.parametrize("kind", ["table", "list", "file"])
async def test_rendered_as_mediawiki(
    wiki: WikiHarness, client: httpx.AsyncClient, kind: str
) -> None:
    await wiki.login(client, "Admin")
    if kind == "file":
        await _upload(wiki, client, "Meta9 gray.png", (DATA / "media" / "gray.png").read_bytes())
    cases = [case for case in REFERENCE["cases"] if case["kind"] == kind]
    assert len(cases) >= 10
    for n, case in enumerate(cases):
        title = f"Blocks_{kind}_{n}"
        await wiki.edit_page(title, case["wikitext"])
        response = await client.get(f"/wiki/{title}")
        assert response.status_code == 200
        page = response.text
        body = page[page.index('<div class="mw-parser-output">') :]
        assert body.startswith(case["html"]), case["wikitext"]


async def test_exif_orientation_swaps_width_and_height(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Admin")
    rotated: dict[str, list[int]] = REFERENCE["rotated"]
    for name, size in rotated.items():
        local = name.removeprefix("Meta9_")
        info = await _upload(wiki, client, name, (DATA / "media" / local).read_bytes())
        assert [info["width"], info["height"]] == size, name
        data = await wiki.api(
            client, action="query", prop="imageinfo", titles=f"File:{name}",
            iiprop="size|url", iiurlwidth="10", formatversion="2",
        )  # fmt: skip
        found = data["query"]["pages"][0]["imageinfo"][0]
        assert [found["width"], found["height"]] == size, name
        shown = (10, size[1] * 10 // size[0])
        assert (found["thumbwidth"], found["thumbheight"]) == shown, name
        served = await client.get(found["thumburl"].split("8080", 1)[1])
        assert served.status_code == 200
        with Image.open(io.BytesIO(served.content)) as thumb:
            assert thumb.size == shown, name
            rgb = thumb.convert("RGB")
            corners = {
                "3": (thumb.width - 1, thumb.height - 1),  # turned half way
                "5": (0, 0),  # mirrored orientations are not turned
                "6": (thumb.width - 1, 0),  # a quarter clockwise
                "8": (0, thumb.height - 1),  # a quarter counterclockwise
            }
            pixel = rgb.getpixel(corners[local[3]])
            assert isinstance(pixel, tuple)
            assert pixel[2] > pixel[0], (name, pixel)  # bluer than the red around it
    await wiki.edit_page("Rotated", "[[File:Meta9 rot6.jpg|10px]] [[File:Meta9 rot8.jpg|thumb]]")
    page = (await client.get("/wiki/Rotated")).text
    assert 'decoding="async" width="10" height="20" srcset=' in page
    assert '<div class="thumbinner" style="width:22px;">' in page  # 20 wide, not upscaled
    assert 'decoding="async" width="20" height="40" class="thumbimage" />' in page
