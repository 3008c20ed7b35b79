"""GET /thumbnail: scaled previews of uploads under the upload's own rights, external images
only through the Camo proxy, and never a fetch by the server."""

from __future__ import annotations

import io
import socket
from urllib.parse import urlencode

import httpx
import pytest
from PIL import Image

from tests.chat.conftest import ChatHarness, Member, assert_json_error, assert_json_success
from tests.chat.uploads_helpers import png_bytes, post_files

pytestmark = pytest.mark.anyio


async def upload_png(chat: ChatHarness, user: Member, size: int = 1200) -> str:
    resp = await post_files(
        chat, "/user_uploads", user, [("photo.png", png_bytes(size=size), "image/png")]
    )
    uri: str = assert_json_success(resp)["uri"]
    return uri


async def thumbnail(
    chat: ChatHarness, user: Member | None, url: str, size: str | None = "thumbnail"
) -> httpx.Response:
    params = {"url": url} if size is None else {"url": url, "size": size}
    headers = user.auth() if user else {}
    return await chat.client.get("/thumbnail?" + urlencode(params), headers=headers)


async def test_upload_preview_is_scaled_once_and_cached(chat: ChatHarness) -> None:
    uri = await upload_png(chat, chat.hamlet)
    resp = await thumbnail(chat, chat.hamlet, uri)
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"] == "image/webp"
    assert resp.headers["x-content-type-options"] == "nosniff"
    with Image.open(io.BytesIO(resp.content)) as image:
        assert image.size == (300, 300)
    cached = list((chat.runtime.settings.data_dir / "thumbnails").rglob("*.webp"))
    assert len(cached) == 1
    stamp = cached[0].stat().st_mtime_ns
    again = await thumbnail(chat, chat.hamlet, uri, size=None)  # `thumbnail` is the default
    assert again.content == resp.content
    assert cached[0].stat().st_mtime_ns == stamp  # read from the cache, not made again
    # `full` is the upload itself, through its own link (which checks the rights again).
    full = await thumbnail(chat, chat.hamlet, uri, size="full")
    assert full.status_code == 302
    assert full.headers["location"] == uri
    # Deleting the upload deletes its preview too.
    attachment_id = assert_json_success(await chat.get("/attachments", chat.hamlet))["attachments"][
        0
    ]["id"]
    assert_json_success(await chat.delete(f"/attachments/{attachment_id}", chat.hamlet))
    assert not cached[0].exists()


async def test_reader_of_the_message_sees_the_preview(chat: ChatHarness) -> None:
    uri = await upload_png(chat, chat.hamlet, size=40)
    assert (await thumbnail(chat, chat.cordelia, uri)).status_code == 403
    await chat.send_dm(chat.hamlet, [chat.cordelia], f"[photo]({uri})")
    resp = await thumbnail(chat, chat.cordelia, uri)
    assert resp.status_code == 200
    with Image.open(io.BytesIO(resp.content)) as image:
        assert image.size == (40, 40)  # never enlarged


async def test_no_preview_for_who_cannot_read_the_upload(chat: ChatHarness) -> None:
    """The attack: someone outside a private stream asks for the preview of a file posted in
    it, by its path. They get nothing, and no more than for a path that does not exist."""
    await chat.make_stream("secret", [chat.hamlet], invite_only=True)
    uri = await upload_png(chat, chat.hamlet, size=50)
    await chat.send_stream(chat.hamlet, "secret", "plans", f"[photo]({uri})")
    for size in ("thumbnail", "full"):
        resp = await thumbnail(chat, chat.cordelia, uri, size=size)
        assert resp.status_code == 403
        assert b"PNG" not in resp.content and b"WEBP" not in resp.content
        assert "location" not in resp.headers
    missing = await thumbnail(chat, chat.cordelia, f"/user_uploads/{chat.realm_id}/aa/bb/no.png")
    assert (missing.status_code, missing.text) == (resp.status_code, resp.text)
    # Signed out: the sign-in page, as for the upload itself.
    anonymous = await thumbnail(chat, None, uri)
    assert anonymous.status_code == 302 and anonymous.headers["location"] == "/login"
    # A wrong API key is no better.
    bad = await chat.client.get(
        "/thumbnail?" + urlencode({"url": uri}), auth=(chat.cordelia.email, "wrong")
    )
    assert bad.status_code == 401
    # Path tricks do not reach another file.
    trick = uri.replace("/user_uploads/", "/user_uploads/../user_uploads/")
    assert (await thumbnail(chat, chat.cordelia, trick)).status_code == 403


async def test_external_images_only_through_camo(chat: ChatHarness, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Any fetch would first resolve the image's host: record every lookup of it.
    lookups: list[object] = []
    real_getaddrinfo = socket.getaddrinfo

    def watched(host: object, *args: object, **kwargs: object) -> object:
        if isinstance(host, str) and host.endswith("example.org"):
            lookups.append(host)
        return real_getaddrinfo(host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", watched)
    url = "https://images.example.org/cat.png"
    resp = await thumbnail(chat, chat.hamlet, url)
    assert resp.status_code == 403
    for hostile in ("file:///etc/passwd", "javascript:alert(1)", "//evil.example/x.png"):
        assert (await thumbnail(chat, chat.hamlet, hostile)).status_code == 403
    chat.runtime.settings = chat.runtime.settings.with_(
        camo_url="https://camo.example.net/", camo_key="sekrit"
    )
    resp = await thumbnail(chat, chat.hamlet, url)
    assert resp.status_code == 302
    location = resp.headers["location"]
    assert location.startswith("https://camo.example.net/")
    assert location.endswith("/" + url.encode().hex())
    assert (await thumbnail(chat, chat.hamlet, "file:///etc/passwd")).status_code == 403
    assert lookups == []


async def test_bad_input(chat: ChatHarness) -> None:
    resp = await chat.client.get("/thumbnail", headers=chat.hamlet.auth())
    assert_json_error(resp, "Missing 'url' argument", code="REQUEST_VARIABLE_MISSING")
    resp = await thumbnail(chat, chat.hamlet, "/user_uploads/1/x.png", size="huge")
    assert resp.status_code == 403 and "Invalid size" in resp.text
    resp = await thumbnail(chat, chat.hamlet, "https://e.example/" + "a" * 5000)
    assert_json_error(resp, "URL too long")
    # An upload that is no image is shown as itself, by its link.
    resp = await post_files(
        chat, "/user_uploads", chat.hamlet, [("x.png", b"not png", "image/png")]
    )
    uri = assert_json_success(resp)["uri"]
    resp = await thumbnail(chat, chat.hamlet, uri)
    assert resp.status_code == 302 and resp.headers["location"] == uri
