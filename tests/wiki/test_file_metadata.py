"""File metadata: files uploaded to the reference MediaWiki 1.39 (a JPEG with EXIF incl.
GPS and a COM comment, one without EXIF, animated and still GIFs with comments, PNGs with text
chunks, pHYs and APNG frames) are uploaded here too, and `iiprop=metadata|commonmetadata` answer
what the reference answered (data/media_metadata.json), in fv1 and fv2, in metadata version 1 and
`latest`; list=allimages, prop=stashimageinfo, list=filearchive and the upload result share it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness

from atrium.wiki import schema

pytestmark = pytest.mark.anyio

DATA = Path(__file__).parent / "data"
CASES: dict[str, dict[str, Any]] = json.loads((DATA / "media_metadata.json").read_text())["cases"]


def _name(local: str) -> str:
    return f"Meta9_{local}"


async def _upload(
    wiki: WikiHarness, client: httpx.AsyncClient, name: str, data: bytes, **extra: str
) -> Any:
    token = await wiki.csrf(client)
    response = await client.post(
        "/w/api.php",
        data={"action": "upload", "filename": name, "token": token, "format": "json", **extra},
        files={"file": (name, data, "application/octet-stream")},
    )
    return response.json()


@pytest.fixture
async def uploaded(wiki: WikiHarness, client: httpx.AsyncClient) -> dict[str, Any]:
    await wiki.login(client, "Admin")
    results = {}
    for local in CASES:
        done = await _upload(wiki, client, _name(local), (DATA / "media" / local).read_bytes())
        assert done["upload"]["result"] == "Success", done
        results[local] = done["upload"]["imageinfo"]
    return results


def _info(data: Any) -> dict[str, Any]:
    pages = data["query"]["pages"]
    page = pages[0] if isinstance(pages, list) else next(iter(pages.values()))
    info: dict[str, Any] = page["imageinfo"][0]
    info.pop("size", None)
    return info


async def test_imageinfo_metadata_as_the_reference(
    wiki: WikiHarness, client: httpx.AsyncClient, uploaded: dict[str, Any]
) -> None:
    for local in sorted(CASES):
        for key, extra in (
            ("fv2", {"formatversion": "2"}),
            ("fv1", {}),
            ("latest", {"formatversion": "2", "iimetadataversion": "latest"}),
        ):
            data = await wiki.api(
                client, action="query", prop="imageinfo", titles=f"File:{_name(local)}",
                iiprop="size|metadata|commonmetadata|bitdepth|mime", **extra,
            )  # fmt: skip
            assert _info(data) == CASES[local][key], (local, key)


async def test_upload_result_allimages_and_legacy_rows(
    wiki: WikiHarness, client: httpx.AsyncClient, uploaded: dict[str, Any]
) -> None:
    # The upload's own imageinfo: MediaWiki's getInfo with the latest metadata version.
    for local, info in uploaded.items():
        want = CASES[local]["latest"]
        assert info["metadata"] == want["metadata"], local
        assert info["commonmetadata"] == want["commonmetadata"], local
        assert info.get("duration") == want.get("duration"), local
        assert info["bitdepth"] == want["bitdepth"], local
    data = await wiki.api(
        client, action="query", list="allimages", aiprefix="Meta9_a", formatversion="2",
        aiprop="size|metadata|commonmetadata",
    )  # fmt: skip
    listed = {i["name"]: i for i in data["query"]["allimages"]}
    assert sorted(listed) == ["Meta9_anim.gif", "Meta9_anim2.gif", "Meta9_apng.png"]
    for local in ("anim.gif", "anim2.gif", "apng.png"):
        item, want = listed[_name(local)], CASES[local]["latest"]
        assert item["metadata"] == want["metadata"]
        assert item["commonmetadata"] == want["commonmetadata"]
        assert item["duration"] == want["duration"]
    # A row recorded without metadata (an older upload) is read from its stored file.
    await wiki.db.write(lambda conn: conn.execute(sa.update(schema.image).values(img_metadata="")))
    for local in ("exif.jpg", "chunks.png", "anim.gif"):
        data = await wiki.api(
            client, action="query", prop="imageinfo", titles=f"File:{_name(local)}",
            iiprop="size|metadata|commonmetadata|bitdepth|mime", formatversion="2",
        )  # fmt: skip
        assert _info(data) == CASES[local]["fv2"], local


async def test_stash_and_filearchive(
    wiki: WikiHarness, client: httpx.AsyncClient, uploaded: dict[str, Any]
) -> None:
    stashed = await _upload(
        wiki, client, "Stashed.jpg", (DATA / "media" / "exif2.jpg").read_bytes(), stash="1"
    )
    key = stashed["upload"]["filekey"]
    data = await wiki.api(
        client, action="query", prop="stashimageinfo", siifilekey=key, formatversion="2",
        siiprop="metadata|commonmetadata|size",
    )  # fmt: skip
    info = data["query"]["stashimageinfo"][0]
    assert info["metadata"] == CASES["exif2.jpg"]["latest"]["metadata"]
    assert info["commonmetadata"] == CASES["exif2.jpg"]["fv2"]["commonmetadata"]
    token = await wiki.csrf(client)
    deleted = await wiki.post(
        client, action="delete", title=f"File:{_name('anim2.gif')}", token=token
    )
    assert "delete" in deleted, deleted
    data = await wiki.api(
        client, action="query", list="filearchive", faprefix="Meta9_anim2", formatversion="2",
        faprop="metadata",
    )  # fmt: skip
    assert data["query"]["filearchive"][0]["metadata"] == CASES["anim2.gif"]["latest"]["metadata"]
