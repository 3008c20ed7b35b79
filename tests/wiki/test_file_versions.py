"""Files in several versions: a re-upload with `ignorewarnings` archives the previous
version in `oldimage` (its bytes under /images/archive/), prop=imageinfo lists the versions with
`iilimit`, `iistart`/`iiend`, continuation and `archivename` as MediaWiki 1.39 does; thumbnails of
JPEG/GIF/PNG really scaled; `extmetadata` and `uploadwarning` as the reference wiki gives them."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PIL import Image
from tests.wiki.conftest import WikiHarness

from atrium.wiki.changes import uploads

pytestmark = pytest.mark.anyio


def picture(fmt: str, size: tuple[int, int], colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    image = Image.new("RGB", size, colour)
    (image.convert("P") if fmt == "GIF" else image).save(out, fmt)
    return out.getvalue()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Uploads one second apart: 2026-01-01 10:00:01, :02, …"""
    stamps = [f"2026010110000{i}" for i in range(1, 10)]
    used: list[str] = []

    def tick() -> str:
        used.append(stamps[len(used)])
        return used[-1]

    monkeypatch.setattr(uploads, "now14", tick)
    yield used


async def _upload(
    wiki: WikiHarness, client: httpx.AsyncClient, name: str, data: bytes, **extra: str
) -> dict[str, Any]:
    token = await wiki.csrf(client)
    response = await client.post(
        "/w/api.php",
        data={"action": "upload", "filename": name, "token": token, "format": "json", **extra},
        files={"file": (name, data, "application/octet-stream")},
    )
    result: dict[str, Any] = response.json()
    return result


@pytest.fixture
async def versions(wiki: WikiHarness, client: httpx.AsyncClient, clock: list[str]) -> list[bytes]:
    await wiki.login(client, "Admin")
    files = [picture("PNG", (40 * n, 20 * n), (50 * n, 10, 10)) for n in (1, 2, 3)]
    first = await _upload(wiki, client, "Versions.png", files[0], comment="first")
    assert first["upload"]["result"] == "Success", first
    refused = await _upload(wiki, client, "Versions.png", files[1], comment="second")
    assert refused["upload"]["result"] == "Warning"
    assert refused["upload"]["warnings"]["exists"] == "Versions.png"
    for data, comment in ((files[1], "second"), (files[2], "third")):
        done = await _upload(
            wiki, client, "Versions.png", data, comment=comment, ignorewarnings="1"
        )
        assert done["upload"]["result"] == "Success", done
    return files


async def _ii(wiki: WikiHarness, client: httpx.AsyncClient, **params: str) -> Any:
    return await wiki.api(client, action="query", prop="imageinfo", formatversion="2", **params)


async def test_versions_listed_newest_first(
    wiki: WikiHarness, client: httpx.AsyncClient, versions: list[bytes]
) -> None:
    data = await _ii(
        wiki, client, titles="File:Versions.png", iiprop="timestamp|comment|archivename|url|size",
        iilimit="max",
    )  # fmt: skip
    infos = data["query"]["pages"][0]["imageinfo"]
    assert [i["comment"] for i in infos] == ["third", "second", "first"]
    assert [i["timestamp"] for i in infos] == [
        "2026-01-01T10:00:04Z", "2026-01-01T10:00:03Z", "2026-01-01T10:00:01Z",
    ]  # fmt: skip
    assert "archivename" not in infos[0]
    # Archived under the time the next version replaced it, as LocalFile::publish names it.
    assert infos[1]["archivename"] == "20260101100004!Versions.png"
    assert infos[2]["archivename"] == "20260101100003!Versions.png"
    assert infos[1]["url"].endswith("/images/archive/f/f5/20260101100004%21Versions.png") or (
        "/images/archive/" in infos[1]["url"] and "%21Versions.png" in infos[1]["url"]
    )
    for info, data in zip(infos, reversed(versions), strict=True):
        served = await client.get(info["url"].split("8080", 1)[1])
        assert served.status_code == 200 and served.content == data
        assert info["size"] == len(data)
    assert data == versions[0]


async def test_limit_start_end_and_continuation(
    wiki: WikiHarness, client: httpx.AsyncClient, versions: list[bytes]
) -> None:
    first = await _ii(wiki, client, titles="File:Versions.png", iiprop="comment", iilimit="2")
    assert [i["comment"] for i in first["query"]["pages"][0]["imageinfo"]] == ["third", "second"]
    assert first["continue"] == {"iistart": "2026-01-01T10:00:01Z", "continue": "||"}
    rest = await _ii(
        wiki, client, titles="File:Versions.png", iiprop="comment", iilimit="2",
        iistart=first["continue"]["iistart"],
    )  # fmt: skip
    assert [i["comment"] for i in rest["query"]["pages"][0]["imageinfo"]] == ["first"]
    assert rest["batchcomplete"] is True
    window = await _ii(
        wiki, client, titles="File:Versions.png", iiprop="comment", iilimit="5",
        iistart="2026-01-01T10:00:03Z", iiend="2026-01-01T10:00:02Z",
    )  # fmt: skip
    assert [i["comment"] for i in window["query"]["pages"][0]["imageinfo"]] == ["second"]
    # Only an end: the oldest versions after it (getHistory searches upwards).
    oldest = await _ii(
        wiki, client, titles="File:Versions.png", iiprop="comment", iilimit="1",
        iiend="2026-01-01T10:00:01Z",
    )  # fmt: skip
    assert [i["comment"] for i in oldest["query"]["pages"][0]["imageinfo"]] == ["third"]
    # Several titles: the list stops at the limit without a continuation.
    await _upload(wiki, client, "Other.png", picture("PNG", (4, 4), (1, 2, 3)))
    both = await _ii(
        wiki, client, titles="File:Versions.png|File:Other.png", iiprop="comment", iilimit="2"
    )
    assert "continue" not in both
    counts = {p["title"]: len(p["imageinfo"]) for p in both["query"]["pages"]}
    assert counts == {"File:Other.png": 1, "File:Versions.png": 2}
    bad = await _ii(wiki, client, titles="File:Versions.png", iicontinue="nopipe")
    assert bad["error"]["code"] == "badcontinue"


async def test_deleting_moves_old_versions_to_filearchive(
    wiki: WikiHarness, client: httpx.AsyncClient, versions: list[bytes]
) -> None:
    token = await wiki.csrf(client)
    deleted = await wiki.post(client, action="delete", title="File:Versions.png", token=token)
    assert "delete" in deleted, deleted
    data = await wiki.api(
        client, action="query", list="filearchive", faprop="archivename|description",
        formatversion="2",
    )  # fmt: skip
    archived = sorted(
        (f.get("archivename", ""), f["description"]) for f in data["query"]["filearchive"]
    )
    assert archived == [
        ("", "third"),
        ("20260101100003!Versions.png", "first"),
        ("20260101100004!Versions.png", "second"),
    ]
    gone = await _ii(wiki, client, titles="File:Versions.png", iilimit="max")
    assert gone["query"]["pages"][0]["imagerepository"] == ""


async def test_undelete_restores_the_versions(
    wiki: WikiHarness, client: httpx.AsyncClient, versions: list[bytes]
) -> None:
    # As MediaWiki 1.39: the newest archived version becomes the current one again, the others
    # old versions under their archive names; `fileversions` and the log's count say how many.
    token = await wiki.csrf(client)
    before = await _ii(
        wiki, client, titles="File:Versions.png", iilimit="max",
        iiprop="timestamp|comment|archivename|sha1|size|url",
    )  # fmt: skip
    await wiki.post(client, action="delete", title="File:Versions.png", token=token)
    # Only the text when only timestamps are given: no file version comes back.
    history = await wiki.api(
        client, action="query", prop="deletedrevisions", titles="File:Versions.png",
        drvprop="timestamp", drvlimit="max", formatversion="2",
    )  # fmt: skip
    stamps = [r["timestamp"] for r in history["query"]["pages"][0]["deletedrevisions"]]
    text_only = await wiki.post(
        client, action="undelete", title="File:Versions.png", token=token, reason="text",
        timestamps="|".join(stamps), formatversion="2",
    )  # fmt: skip
    assert text_only["undelete"]["fileversions"] == 0
    missing = await _ii(wiki, client, titles="File:Versions.png")
    assert missing["query"]["pages"][0]["imagerepository"] == ""
    archived = await wiki.api(
        client, action="query", list="filearchive", faprop="archivename", formatversion="2"
    )
    ids = [str(f["id"]) for f in archived["query"]["filearchive"]]
    done = await wiki.post(
        client, action="undelete", title="File:Versions.png", token=token, reason="back",
        fileids="|".join(ids), formatversion="2",
    )  # fmt: skip
    assert done["undelete"] == {
        "title": "File:Versions.png", "revisions": 0, "fileversions": 3, "reason": "back",
    }  # fmt: skip
    after = await _ii(
        wiki, client, titles="File:Versions.png", iilimit="max",
        iiprop="timestamp|comment|archivename|sha1|size|url",
    )  # fmt: skip
    assert after["query"]["pages"][0]["imageinfo"] == before["query"]["pages"][0]["imageinfo"]
    for info, data in zip(after["query"]["pages"][0]["imageinfo"], reversed(versions), strict=True):
        served = await client.get(info["url"].split("8080", 1)[1])
        assert served.status_code == 200 and served.content == data
    gone = await wiki.api(client, action="query", list="filearchive", formatversion="2")
    assert gone["query"]["filearchive"] == []
    log = await wiki.api(
        client, action="query", list="logevents", letype="delete", formatversion="2",
        leprop="type|details|comment",
    )  # fmt: skip
    assert log["query"]["logevents"][:2] == [
        {"type": "delete", "action": "restore", "comment": "back",
         "params": {"count": {"revisions": 0, "files": 3}}},
        {"type": "delete", "action": "restore", "comment": "text",
         "params": {"count": {"revisions": 3, "files": 0}}},
    ]  # fmt: skip
    # Deleted and restored in one go: text and files together.
    await wiki.post(client, action="delete", title="File:Versions.png", token=token)
    again = await wiki.post(
        client, action="undelete", title="File:Versions.png", token=token, formatversion="2"
    )
    assert (again["undelete"]["revisions"], again["undelete"]["fileversions"]) == (3, 3)
    restored = await _ii(
        wiki, client, titles="File:Versions.png", iilimit="max",
        iiprop="timestamp|comment|archivename|sha1|size|url",
    )  # fmt: skip
    assert restored["query"]["pages"][0]["imageinfo"] == before["query"]["pages"][0]["imageinfo"]


async def test_thumbnails_are_scaled(
    wiki: WikiHarness, client: httpx.AsyncClient, clock: list[str]
) -> None:
    await wiki.login(client, "Admin")
    for name, fmt, mime in (
        ("Photo.jpg", "JPEG", "image/jpeg"),
        ("Anim.gif", "GIF", "image/gif"),
        ("Flat.png", "PNG", "image/png"),
    ):
        done = await _upload(wiki, client, name, picture(fmt, (300, 200), (200, 40, 40)))
        assert done["upload"]["result"] == "Success", done
        data = await _ii(
            wiki, client, titles=f"File:{name}", iiprop="url|thumbmime", iiurlwidth="120"
        )
        info = data["query"]["pages"][0]["imageinfo"][0]
        assert (info["thumbwidth"], info["thumbheight"]) == (120, 80)
        assert info["thumburl"].endswith(f"/120px-{name}") and info["thumbmime"] == mime
        for _ in range(2):  # made once, then served from the kept copy
            thumb = await client.get(info["thumburl"].split("8080", 1)[1])
            assert thumb.status_code == 200 and thumb.headers["content-type"] == mime
            with Image.open(io.BytesIO(thumb.content)) as scaled:
                assert (scaled.format, scaled.size) == (fmt, (120, 80))
        boxed = await _ii(wiki, client, titles=f"File:{name}", iiprop="url", iiurlheight="50")
        info = boxed["query"]["pages"][0]["imageinfo"][0]
        assert (info["thumbwidth"], info["thumbheight"]) == (75, 50)
        thumb = await client.get(info["thumburl"].split("8080", 1)[1])
        with Image.open(io.BytesIO(thumb.content)) as scaled:
            assert scaled.size == (75, 50)


async def test_extmetadata_uploadwarning_filemissing_badfile(
    wiki: WikiHarness, client: httpx.AsyncClient, versions: list[bytes]
) -> None:
    await wiki.edit_page("File:Only page.png", "A description page without a file")
    data = await _ii(
        wiki, client, titles="File:Versions.png|File:Nope.png|File:Only page.png|File:Versions.jpg",
        iiprop="extmetadata|uploadwarning", iilimit="2", iiextmetadatafilter="DateTime|ObjectName",
        iiprop_badfile="",
    )  # fmt: skip
    pages = {p["title"]: p for p in data["query"]["pages"]}
    current, older = pages["File:Versions.png"]["imageinfo"]
    assert current["extmetadata"] == {
        "DateTime": {"value": "2026-01-01T10:00:04Z", "source": "mediawiki-metadata", "hidden": ""},
        "ObjectName": {"value": "Versions", "source": "mediawiki-metadata", "hidden": ""},
    }
    assert older["extmetadata"]["DateTime"]["value"] == "2026-01-01T10:00:03Z"
    # Recorded from MediaWiki 1.39 (its image paths are /w/images/, ours /images/).
    assert current["html"] == (
        '<p>A file with this name exists already, please check <strong><a class="mw-selflink '
        'selflink">File:Versions.png</a></strong> if you are not sure if you want to overwrite '
        'it.\n</p>\n<div class="thumb tright"><div class="thumbinner" style="width:122px;"><a '
        'href="/wiki/File:Versions.png" class="image"><img alt="Versions.png" '
        'src="/images/f/f5/Versions.png" decoding="async" width="120" height="60" '
        'class="thumbimage" /></a>  <div class="thumbcaption"><div class="magnify"><a '
        'href="/wiki/File:Versions.png" class="internal" title="Enlarge"></a></div></div></div>'
        "</div>"
    ).replace("f/f5", _hash("Versions.png"))
    assert older["html"] == current["html"]
    assert pages["File:Nope.png"]["imageinfo"] == [{"html": "", "filemissing": True}]
    assert pages["File:Nope.png"]["imagerepository"] == ""
    page_only = pages["File:Only page.png"]["imageinfo"][0]["html"]
    assert page_only.startswith(
        "<p>The description page for this file has already been created at <strong>"
    )
    assert 'href="/w/index.php?title=Special:Upload&amp;wpDestFile=Only_page.png" class="new"' in (
        page_only
    )
    similar = pages["File:Versions.jpg"]["imageinfo"][0]["html"]
    assert similar.startswith("<p>A file with a similar name exists: ")
    assert 'href="/wiki/File:Versions.png" class="image"' in similar
    badfile = await _ii(wiki, client, titles="File:Versions.png|File:Nope.png", iiprop="badfile")
    for page in badfile["query"]["pages"]:
        assert page["badfile"] is False
    camera = await _ii(wiki, client, titles="File:IMG 0001.jpg", iiprop="uploadwarning")
    assert camera["query"]["pages"][0]["imageinfo"][0]["html"].startswith(
        '<p>The name of the file you are uploading begins with <strong>"IMG"</strong>'
    )


def _hash(name: str) -> str:
    from atrium.wiki.files.paths import hash_path

    return hash_path(name).rstrip("/")


async def test_file_urls_agree_and_are_served(
    wiki: WikiHarness, client: httpx.AsyncClient, clock: list[str]
) -> None:
    # One URL scheme everywhere: the upload result, prop=imageinfo and the rendered page all
    # use /images/x/xy/Name (MediaWiki's $wgUploadPath is /w/images there), escaped alike.
    await wiki.login(client, "Admin")
    data = picture("PNG", (30, 20), (1, 2, 3))
    done = await _upload(wiki, client, "Why? & how (1)!.png", data)
    url = done["upload"]["imageinfo"]["url"]
    info = await _ii(wiki, client, titles="File:Why? & how (1)!.png", iiprop="url")
    assert info["query"]["pages"][0]["imageinfo"][0]["url"] == url
    path = url.split("8080", 1)[1]
    assert path.startswith("/images/") and path.endswith("/Why%3F_%26_how_%281%29%21.png")
    served = await client.get(path)
    assert served.status_code == 200 and served.content == data
    await wiki.edit_page("Shows it", "See [[File:Why? & how (1)!.png]] here")
    page = (await client.get("/wiki/Shows_it")).text
    assert f'src="{path.replace("&", "&amp;")}"' in page
