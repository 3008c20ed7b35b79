"""Wiki uploads as attacks: HTML, SVG and disguised files through api.php (file and filekey), the
stash and Special:Upload are refused with MediaWiki's errors; names with `/` are refused;
`/images/` serves only recorded files, with the recorded type, a sandbox and `nosniff`; files
stored before verification are quarantined on start; thumbnails are made only at handed-out
widths, under the file's own name, below $wgMaxImageArea, off the event loop, in a bounded
store; uploads are spooled to disk, not read whole into memory."""

from __future__ import annotations

import io
import logging
import os
import struct
import time
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from PIL import Image
from starlette.datastructures import UploadFile
from starlette.requests import Request

from atrium.server import create_app
from atrium.settings import Settings
from atrium.wiki.app import open_wiki
from atrium.wiki.files import thumb_cache, thumbs
from atrium.wiki.files.paths import hash_path
from tests.wiki import conftest as wiki_conftest
from tests.wiki.conftest import WikiHarness, _setup_users
from tests.wiki.web_special_seed import page_token, sign_in

pytestmark = pytest.mark.anyio

# The wiki's fixtures (tests/wiki/conftest.py), for tests kept under tests/security.
service_under_test = wiki_conftest.service_under_test
wiki = wiki_conftest.wiki
client = wiki_conftest.client

STEAL_HTML = (
    b'<!doctype html><title>x</title><script>fetch("/json/messages")'
    b".then(r => r.text()).then(t => document.title = t)</script>"
)
LOGO_SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>'
CLEAN_SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><rect width="4" height="4"/></svg>'


def png(width: int, height: int, shade: int = 0) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (shade % 256, 120, 200)).save(out, format="PNG")
    return out.getvalue()


def huge_png(width: int, height: int) -> bytes:
    """A valid PNG of many pixels in few bytes (one colour, compressed)."""
    compressor = zlib.compressobj(9)
    row = b"\x00" + b"\xc8\x1e\x1e" * width
    data = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


async def _upload(
    wiki: WikiHarness, client: httpx.AsyncClient, name: str, data: bytes, **extra: str
) -> Any:
    token = await wiki.csrf(client)
    response = await client.post(
        "/w/api.php",
        data={"action": "upload", "filename": name, "token": token, "format": "json",
              "ignorewarnings": "1", **extra},
        files={"file": (name, data, "application/octet-stream")},
    )  # fmt: skip
    assert response.status_code == 200
    return response.json()


def _stored(wiki: WikiHarness) -> list[str]:
    assert wiki.site.files_dir is not None
    images = wiki.site.files_dir / "images"
    return sorted(p.relative_to(images).as_posix() for p in images.rglob("*") if p.is_file())


async def _nothing_published(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    listed = await wiki.api(client, action="query", list="allimages")
    assert listed["query"]["allimages"] == []
    assert _stored(wiki) == []


# --- api.php action=upload with a file --------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data", "code", "details"),
    [
        ("Steal.html", STEAL_HTML, "verification-error", ["filetype-badmime", "text/html"]),
        ("Logo.svg", LOGO_SVG, "verification-error", ["uploadscripted"]),
        ("Steal.png", STEAL_HTML, "verification-error", ["filetype-badmime", "text/html"]),
        ("Logo.png", LOGO_SVG, "verification-error", ["uploadscripted"]),
        ("Pic.html", png(4, 4), "verification-error", ["filetype-mime-mismatch", "html", "image/png"]),
        ("Pic.gif", png(4, 4), "verification-error", ["filetype-mime-mismatch", "gif", "image/png"]),
        ("Noise.png", b"just some text", "verification-error", ["filetype-mime-mismatch", "png", "unknown/unknown"]),
    ],
)  # fmt: skip
async def test_api_refuses_html_svg_and_disguised_files(
    wiki: WikiHarness,
    client: httpx.AsyncClient,
    name: str,
    data: bytes,
    code: str,
    details: list[str],
) -> None:
    await wiki.login(client, "Alice")
    result = await _upload(wiki, client, name, data)
    assert result["error"]["code"] == code, result
    assert result["error"]["details"] == details
    await _nothing_published(wiki, client)


async def test_api_refuses_clean_svg_as_a_banned_type(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Alice")
    result = await _upload(wiki, client, "Drawing.svg", CLEAN_SVG)
    error = result["error"]
    assert error["code"] == "filetype-banned"
    assert error["filetype"] == "svg"
    assert error["allowed"] == ["png", "gif", "jpg", "jpeg", "webp"]
    assert '".svg"' in error["info"] and "png, gif, jpg, jpeg, webp" in error["info"]
    # A prohibited extension anywhere in the name, even before an allowed one.
    html_named = await _upload(wiki, client, "Page.html.png", png(4, 4))
    assert html_named["error"]["code"] == "filetype-banned"
    assert html_named["error"]["blacklisted"] == ["html"]
    await _nothing_published(wiki, client)


@pytest.mark.parametrize(
    ("name", "suggested"),
    [("Sub/dir/x.png", "Sub-dir-x.png"), ("Back\\slash.png", "Back-slash.png")],
)
async def test_api_refuses_names_with_slashes(
    wiki: WikiHarness, client: httpx.AsyncClient, name: str, suggested: str
) -> None:
    await wiki.login(client, "Alice")
    result = await _upload(wiki, client, name, png(4, 4))
    assert result["error"]["code"] == "illegal-filename"
    assert result["error"]["info"] == "The filename is not allowed."
    assert result["error"]["filename"] == suggested
    await _nothing_published(wiki, client)


# --- the stash and filekey --------------------------------------------------------------------


async def test_stash_refuses_traversal_names_and_html(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Alice")
    assert wiki.site.files_dir is not None
    stash = wiki.site.files_dir / "stash"
    traversal = await _upload(wiki, client, "a./../../../x", png(4, 4), stash="1")
    assert traversal["error"]["code"] == "illegal-filename"
    html = await _upload(wiki, client, "Steal.html", STEAL_HTML, stash="1")
    assert html["error"]["code"] == "verification-error"
    assert not stash.exists() or list(stash.rglob("*")) == []
    # A good file's key takes the verified extension, in lower case, and nothing else.
    good = await _upload(wiki, client, "Fine.PNG", png(4, 4), stash="1")
    key = good["upload"]["filekey"]
    assert key.endswith(".png") and "/" not in key
    assert [p.name for p in stash.iterdir()] == [key]


async def test_filekey_publish_is_verified_under_its_new_name(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Alice")
    key = (await _upload(wiki, client, "Fine.png", png(4, 4), stash="1"))["upload"]["filekey"]
    token = await wiki.csrf(client)
    for name, code in (("Steal.html", "verification-error"), ("Sub/x.png", "illegal-filename")):
        refused = await wiki.post(
            client, action="upload", filekey=key, filename=name, token=token, ignorewarnings="1"
        )
        assert refused["error"]["code"] == code, refused
    await _nothing_published(wiki, client)
    done = await wiki.post(
        client, action="upload", filekey=key, filename="Fine.png", token=token, ignorewarnings="1"
    )
    assert done["upload"]["result"] == "Success"
    assert _stored(wiki) == [f"{hash_path('Fine.png')}Fine.png"]


# --- Special:Upload ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("Steal.html", STEAL_HTML, "are not allowed to be uploaded"),
        ("Logo.svg", LOGO_SVG, "HTML or script code"),
        ("Steal.png", STEAL_HTML, "are not allowed to be uploaded"),
        ("Pic.html", png(4, 4), "does not match the detected MIME type"),
        ("Sub/dir/x.png", png(4, 4), "The filename is not allowed."),
    ],
)
async def test_special_upload_refuses_the_same(
    wiki: WikiHarness, client: httpx.AsyncClient, name: str, data: bytes, says: str
) -> None:
    await sign_in(wiki, client, "Alice")
    response = await client.post(
        "/w/index.php?title=Special:Upload",
        data={"wpDestFile": name, "wpEditToken": await page_token(client)},
        files={"wpUploadFile": (name, data, "image/png")},
    )
    assert response.status_code == 200  # the form again with the error, as MediaWiki 1.39
    assert says in response.text
    await _nothing_published(wiki, client)
    assert wiki.site.files_dir is not None
    assert list((wiki.site.files_dir / "tmp").iterdir()) == []  # the spooled copy is gone


# --- /images/ ---------------------------------------------------------------------------------


async def test_images_serve_the_recorded_type_sandboxed(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Alice")
    done = await _upload(wiki, client, "Dot.png", png(4, 4))
    url = done["upload"]["imageinfo"]["url"]
    response = await client.get(url)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in response.headers["content-security-policy"]
    assert "default-src 'none'" in response.headers["content-security-policy"]
    assert response.headers["content-disposition"].startswith("inline")


async def test_legacy_html_is_an_attachment_and_unrecorded_files_are_not_served(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """A file stored before verification (its row says text/html) is downloaded, never shown;
    a file with no row at all is not served."""
    await wiki.login(client, "Alice")
    await _upload(wiki, client, "Legacy.png", png(4, 4))
    assert wiki.site.files_dir is not None
    images = wiki.site.files_dir / "images"
    legacy = images / hash_path("Legacy.png") / "Legacy.png"
    legacy.write_bytes(STEAL_HTML)

    def as_html(conn: Any) -> None:
        from atrium.wiki import schema

        conn.execute(
            schema.image.update()
            .where(schema.image.c.img_name == "Legacy.png")
            .values(img_major_mime="text", img_minor_mime="html", img_media_type="TEXT")
        )

    await wiki.db.write(as_html)
    response = await client.get(f"/images/{hash_path('Legacy.png')}Legacy.png")
    assert response.headers["content-disposition"].startswith("attachment")
    assert "sandbox" in response.headers["content-security-policy"]
    planted = images / hash_path("Evil.html") / "Evil.html"
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.write_bytes(STEAL_HTML)
    assert (await client.get(f"/images/{hash_path('Evil.html')}Evil.html")).status_code == 404
    # The hashed folders must be the name's own: no second URL for a file.
    wrong = "0/00/" if hash_path("Legacy.png") != "0/00/" else "1/11/"
    assert (await client.get(f"/images/{wrong}Legacy.png")).status_code == 404


async def test_quarantine_on_start_moves_planted_html(
    data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    images = data_dir / "wiki-files" / "images"
    evil = images / "x" / "xy" / "Evil.html"
    evil.parent.mkdir(parents=True)
    evil.write_bytes(STEAL_HTML)
    disguised = images / "a" / "ab" / "Fake.png"
    disguised.parent.mkdir(parents=True)
    disguised.write_bytes(LOGO_SVG)
    good = images / hash_path("Good.png") / "Good.png"
    good.parent.mkdir(parents=True, exist_ok=True)
    good.write_bytes(png(4, 4))
    stale_thumb = images / "thumb" / "a" / "ab" / "X.png" / "50px-anything.html"
    stale_thumb.parent.mkdir(parents=True)
    stale_thumb.write_bytes(png(2, 2))
    settings = Settings(data_dir=data_dir, port=8080, wiki_main_page=False)
    app = create_app(settings, services=("wiki",))
    with caplog.at_level(logging.WARNING, logger="atrium.wiki"):
        async with app.router.lifespan_context(app):
            pass
    quarantine = data_dir / "quarantine"
    assert (quarantine / "x" / "xy" / "Evil.html").read_bytes() == STEAL_HTML
    assert (quarantine / "a" / "ab" / "Fake.png").is_file()
    assert not evil.exists() and not disguised.exists() and good.is_file()
    assert not (images / "thumb").exists()
    assert "images/x/xy/Evil.html" in caplog.text and "images/a/ab/Fake.png" in caplog.text
    # Once only: a file put back later is not moved by the next start.
    evil.write_bytes(STEAL_HTML)
    async with app.router.lifespan_context(app):
        pass
    assert evil.exists()


# --- thumbnails -------------------------------------------------------------------------------


def _thumb(name: str, width: int, asked: str | None = None) -> str:
    return f"/images/thumb/{hash_path(name)}{name}/{width}px-{asked or name}"


async def test_thumbnails_only_at_handed_out_widths_under_the_own_name(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Alice")
    await _upload(wiki, client, "Wide.png", png(1000, 500))
    standard = await client.get(_thumb("Wide.png", 300))
    assert standard.status_code == 200 and standard.headers["content-type"] == "image/png"
    assert Image.open(io.BytesIO(standard.content)).size == (300, 150)
    assert (await client.get(_thumb("Wide.png", 123))).status_code == 404
    assert (await client.get(_thumb("Wide.png", 300, "x0.png"))).status_code == 404
    assert (await client.get(_thumb("Wide.png", 300, "Wide.png.html"))).status_code == 404
    # A page asking for 123px hands that width (and its srcset widths) out.
    await wiki.edit_page("Gallery", "[[File:Wide.png|123px]]")
    page = (await client.get("/wiki/Gallery")).text
    assert "/123px-Wide.png" in page
    assert (await client.get(_thumb("Wide.png", 123))).status_code == 200
    assert (await client.get(_thumb("Wide.png", 185))).status_code == 200  # 1.5x
    # So does imageinfo's iiurlwidth.
    info = await wiki.api(
        client, action="query", prop="imageinfo", titles="File:Wide.png",
        iiprop="url", iiurlwidth="77", formatversion="2",
    )  # fmt: skip
    thumburl = info["query"]["pages"][0]["imageinfo"][0]["thumburl"]
    assert thumburl.endswith("/77px-Wide.png")
    assert (await client.get(thumburl)).status_code == 200
    assert wiki.site.files_dir is not None
    made = sorted(p.name for p in (wiki.site.files_dir / "images" / "thumb").rglob("*px-*"))
    assert made == ["123px-Wide.png", "185px-Wide.png", "300px-Wide.png", "77px-Wide.png"]


async def test_sources_above_the_image_area_are_not_scaled(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await wiki.login(client, "Alice")
    done = await _upload(wiki, client, "Big.png", huge_png(4000, 3200))  # 12.8 MP
    assert done["upload"]["result"] == "Success"  # accepted, as MediaWiki does

    def refuse(data: bytes, width: int) -> None:
        raise AssertionError("scaled a source above $wgMaxImageArea")

    monkeypatch.setattr(thumbs, "scale", refuse)
    response = await client.get(_thumb("Big.png", 300))
    assert response.status_code == 400
    assert "File with dimensions greater than 12.5 MP" in response.text
    info = await wiki.api(
        client, action="query", prop="imageinfo", titles="File:Big.png",
        iiprop="url", iiurlwidth="300", formatversion="2",
    )  # fmt: skip
    found = info["query"]["pages"][0]["imageinfo"][0]
    assert "thumburl" not in found
    assert found["thumberror"].endswith("File with dimensions greater than 12.5 MP")
    await wiki.edit_page("Big", "[[File:Big.png|thumb|300px|Large]]")
    page = (await client.get("/wiki/Big")).text
    assert 'class="MediaTransformError"' in page
    assert "Error creating thumbnail: File with dimensions greater than 12.5 MP" in page
    assert "/300px-Big.png" not in page


async def test_scaling_runs_off_the_event_loop(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await wiki.login(client, "Alice")
    await _upload(wiki, client, "Slow.png", png(800, 400))
    real_scale = thumbs.scale

    def slow_scale(data: bytes, width: int) -> tuple[bytes, str] | None:
        time.sleep(1.5)  # a large image's Lanczos pass, holding its thread
        return real_scale(data, width)

    monkeypatch.setattr(thumbs, "scale", slow_scale)
    timings: dict[str, float] = {}

    async def fetch_thumb() -> None:
        response = await client.get(_thumb("Slow.png", 300))
        assert response.status_code == 200
        timings["thumb"] = time.monotonic()

    async with anyio.create_task_group() as group:
        group.start_soon(fetch_thumb)
        await anyio.sleep(0.2)
        started = time.monotonic()
        answer = await client.get("/w/api.php", params={"action": "query", "format": "json"})
        timings["other"] = time.monotonic()
        assert answer.status_code == 200
    assert timings["other"] - started < 1.0
    assert timings["other"] < timings["thumb"]


def test_thumbnail_store_is_bounded_oldest_first(tmp_path: Path) -> None:
    root = tmp_path / "thumb"
    for index in range(5):
        path = root / "a" / "ab" / f"F{index}.png" / f"120px-F{index}.png"
        path.parent.mkdir(parents=True)
        path.write_bytes(b"x" * 100)
        os.utime(path, (1000 + index, 1000 + index))
    thumb_cache.evict(root, 250)
    left = sorted(p.name for p in root.rglob("*px-*"))
    assert left == ["120px-F3.png", "120px-F4.png"]


async def test_made_thumbnails_respect_the_bound(tmp_path: Path) -> None:
    original = tmp_path / "Pic.png"
    original.write_bytes(png(600, 300))
    root = tmp_path / "thumb"
    first = root / "a" / "120px-Pic.png"
    assert thumb_cache.make(original, first, 120, root, 10_000_000)
    os.utime(first, (1000, 1000))
    second = root / "a" / "300px-Pic.png"
    # A bound below the new copy's own size: the older copy goes first (then the new one too).
    assert thumb_cache.make(original, second, 300, root, 1)
    assert not first.exists()


# --- uploads spooled to disk ------------------------------------------------------------------


async def test_upload_is_spooled_not_read_whole(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes: list[int] = []
    real_read = UploadFile.read

    async def recording_read(self: UploadFile, size: int = -1) -> bytes:
        sizes.append(size)
        return await real_read(self, size)

    async def whole_body(self: Request) -> bytes:
        raise AssertionError("an upload's whole body was read into memory")

    monkeypatch.setattr(UploadFile, "read", recording_read)
    await wiki.login(client, "Alice")
    monkeypatch.setattr(Request, "body", whole_body)
    done = await _upload(wiki, client, "Spooled.png", png(300, 300))
    assert done["upload"]["result"] == "Success"
    assert sizes and all(0 < size <= 1024 * 1024 for size in sizes)
    await sign_in(wiki, client, "Alice")
    sizes.clear()
    response = await client.post(
        "/w/index.php?title=Special:Upload",
        data={"wpDestFile": "Form.png", "wpEditToken": await page_token(client)},
        files={"wpUploadFile": ("Form.png", png(200, 200, 9), "image/png")},
    )
    assert response.status_code == 303
    assert sizes and all(0 < size <= 1024 * 1024 for size in sizes)
    assert wiki.site.files_dir is not None
    assert list((wiki.site.files_dir / "tmp").iterdir()) == []


async def test_too_large_upload_is_refused_while_it_arrives(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from atrium.wiki.api import main
    from atrium.wiki.changes import uploads

    monkeypatch.setattr(main, "MAX_UPLOAD_SIZE", 1000)
    monkeypatch.setattr(uploads, "MAX_SIZE", 1000)
    await wiki.login(client, "Alice")
    noise = Image.frombytes("RGB", (100, 100), os.urandom(30000))
    out = io.BytesIO()
    noise.save(out, format="PNG")
    result = await _upload(wiki, client, "Large.png", out.getvalue())
    assert result["error"]["code"] == "file-too-large"
    assert wiki.site.files_dir is not None
    assert list((wiki.site.files_dir / "tmp").iterdir()) == []
    await _nothing_published(wiki, client)


# --- a separate origin for user content -------------------------------------------------------

CONTENT_ORIGIN = "https://usercontent.example"


@pytest.fixture
async def content_wiki(data_dir: Path, database_url: str | None) -> AsyncIterator[WikiHarness]:
    settings = Settings(
        data_dir=data_dir, database_url=database_url, port=8080, wiki_main_page=False,
        user_content_url=CONTENT_ORIGIN + "/",
    )  # fmt: skip
    app = create_app(settings, services=("wiki",))
    async with app.router.lifespan_context(app):
        db, site = open_wiki(settings)
        try:
            yield WikiHarness(app, settings, site, db, db.write_sync(_setup_users))
        finally:
            db.close()


async def test_user_content_origin_in_every_file_url(content_wiki: WikiHarness) -> None:
    wiki = content_wiki
    async with wiki.client() as client:
        await wiki.login(client, "Alice")
        done = await _upload(wiki, client, "Far.png", png(1000, 500))
        url = done["upload"]["imageinfo"]["url"]
        assert url == f"{CONTENT_ORIGIN}/images/{hash_path('Far.png')}Far.png"
        info = await wiki.api(
            client, action="query", prop="imageinfo", titles="File:Far.png",
            iiprop="url", iiurlwidth="300", formatversion="2",
        )  # fmt: skip
        found = info["query"]["pages"][0]["imageinfo"][0]
        assert found["url"] == url and found["thumburl"].startswith(CONTENT_ORIGIN + "/images/")
        await wiki.edit_page("Far", "[[File:Far.png|thumb|Far away]]")
        page = (await client.get("/wiki/Far")).text
        assert f'src="{CONTENT_ORIGIN}/images/thumb/' in page
        file_page = (await client.get("/wiki/File:Far.png")).text
        assert f'href="{CONTENT_ORIGIN}/images/' in file_page
        assert 'src="/images/' not in page + file_page
        # The server itself still answers /images/ (the other origin points here).
        served = await client.get(url.removeprefix(CONTENT_ORIGIN))
        assert served.status_code == 200 and served.headers["content-type"] == "image/png"
