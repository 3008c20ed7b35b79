"""`Special:UploadStash` over HTTP: the reader's stashed files (a whole one and a chunked upload
still arriving), each served to its owner only, with a thumbnail; the empty state; clearing the
stash needs the session's token; anonymous readers and another user's keys see nothing."""

from __future__ import annotations

import io
from typing import Any

import httpx
import pytest
from PIL import Image
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, png, sign_in

pytestmark = pytest.mark.anyio

URL = "/wiki/Special:UploadStash"
POST = "/w/index.php?title=Special:UploadStash"  # where its form posts


async def _stash(wiki: WikiHarness, client: httpx.AsyncClient, name: str, data: bytes) -> str:
    token = await wiki.csrf(client)
    answer = await client.post(
        "/w/api.php",
        data={"action": "upload", "format": "json", "stash": "1", "filename": name,
              "token": token},
        files={"file": (name, data)},
    )  # fmt: skip
    found: Any = answer.json()
    assert found["upload"]["result"] == "Success", found
    return str(found["upload"]["filekey"])


async def _chunk(wiki: WikiHarness, client: httpx.AsyncClient, data: bytes) -> str:
    token = await wiki.csrf(client)
    answer = await client.post(
        "/w/api.php",
        data={"action": "upload", "format": "json", "stash": "1", "filename": "Partial.png",
              "filesize": str(len(data) * 4), "offset": "0", "token": token},
        files={"chunk": ("blob", data)},
    )  # fmt: skip
    found: Any = answer.json()
    assert found["upload"]["result"] == "Continue", found
    return str(found["upload"]["filekey"])


async def test_own_files_listed_served_and_cleared(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Alice")
    empty = await client.get(URL)
    assert empty.status_code == 200 and "You have no stashed files." in empty.text
    picture = png(400, 300)
    key = await _stash(wiki, client, "Stashed view.png", picture)
    partial = await _chunk(wiki, client, png(30, 30, 3) + b"\0" * 2000)
    listing = await client.get(URL)
    assert listing.status_code == 200 and "You have no stashed files." not in listing.text
    assert f'href="/wiki/Special:UploadStash/file/{key}">{key}</a>' in listing.text
    assert f"/wiki/Special:UploadStash/thumb/{key}/220px-{key}" in listing.text
    # The upload still receiving chunks is listed, without a thumbnail.
    assert f">{partial}</a>" in listing.text and f"thumb/{partial}" not in listing.text
    assert "Clear stashed files" in listing.text
    served = await client.get(f"{URL}/file/{key}")
    assert served.status_code == 200 and served.content == picture
    assert served.headers["content-type"] == "image/png"
    assert served.headers["cache-control"] == "private"
    assert served.headers["x-content-type-options"] == "nosniff"
    thumb = await client.get(f"{URL}/thumb/{key}/220px-{key}")
    assert thumb.status_code == 200
    with Image.open(io.BytesIO(thumb.content)) as image:
        assert image.size == (220, 165)
    for bad in (
        f"{URL}/file/{partial}", f"{URL}/file/nonsense", f"{URL}/other/{key}",
        f"{URL}/thumb/{key}/220px-other.png", f"{URL}/thumb/{key}", f"{URL}/file/",
    ):  # fmt: skip
        refused = await client.get(bad)
        assert refused.status_code == 404, bad
        assert picture not in refused.content
    # `..` makes no title at all (MediaWiki's Bad title).
    assert (await client.get(f"{URL}/file/..%2F{key}")).status_code == 404
    # Clearing needs the token; then nothing is left, on disk either.
    forged = await client.post(POST, data={"clear": "1", "wpEditToken": "forged"})
    assert forged.status_code == 200 and "session hijacking" in forged.text
    assert (await client.get(f"{URL}/file/{key}")).status_code == 200
    cleared = await client.post(POST, data={"clear": "1", "wpEditToken": await page_token(client)})
    assert cleared.status_code == 200 and "You have no stashed files." in cleared.text
    assert (await client.get(f"{URL}/file/{key}")).status_code == 404
    assert wiki.site.files_dir is not None
    assert not [p for p in (wiki.site.files_dir / "stash").iterdir() if key in p.name]


async def test_no_one_else_reaches_a_stash(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    async with wiki.client() as owner:
        await sign_in(wiki, owner, "Alice")
        key = await _stash(wiki, owner, "Private.png", png(50, 40))
    anonymous = await client.get(URL)
    assert anonymous.status_code == 200 and "Not logged in" in anonymous.text
    assert key not in anonymous.text
    served = await client.get(f"{URL}/file/{key}")
    assert "Not logged in" in served.text and not served.content.startswith(b"\x89PNG")
    await sign_in(wiki, client, "Admin")
    other = await client.get(URL)
    assert "You have no stashed files." in other.text and key not in other.text
    for path in (f"{URL}/file/{key}", f"{URL}/thumb/{key}/220px-{key}"):
        refused = await client.get(path)
        assert refused.status_code == 404 and refused.headers["content-type"].startswith(
            "text/plain"
        )
    # Clearing one's own stash leaves another's alone.
    await client.post(POST, data={"clear": "1", "wpEditToken": await page_token(client)})
    async with wiki.client() as owner:
        await sign_in(wiki, owner, "Alice")
        assert (await owner.get(f"{URL}/file/{key}")).status_code == 200
