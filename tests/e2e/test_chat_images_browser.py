"""Shared images in the chat's web client, in Debian's Chromium against a real `atrium serve`:
an image attached in the compose box goes on a line of its own, its inline preview loads for
the person it was sent to (a scaled copy from `/thumbnail`), a click opens it full size in the
viewer, and someone it was not sent to gets no preview.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from tests.e2e.chat_browser import (
    USERS,
    Site,
    browser,
    chromium_or_skip,
    people,
    start_site,
    wait_until,
)

pytestmark = pytest.mark.e2e
# Fixtures shared by the chat's browser modules.
__all__ = ["browser", "people"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    chromium_or_skip()
    with start_site(tmp_path_factory.mktemp("chat-images")) as running:
        yield running


def png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


LOADED = "img => img.complete && img.naturalWidth > 0"


def test_image_shared_in_a_dm_previews_and_opens(people: Any, site: Site) -> None:
    mo, pat = people("mo"), people("pat")
    page = mo.page
    page.keyboard.press("x")
    page.fill("#compose-dm", USERS["pat"][0])
    page.press("#compose-dm", "Enter")
    page.fill("#compose-textarea", "look at this")
    page.set_input_files(
        "#compose-file",
        files=[{"name": "chart.png", "mimeType": "image/png", "buffer": png(1600, 900)}],
    )
    wait_until(lambda: "/user_uploads/" in page.locator("#compose-textarea").input_value())
    text = page.locator("#compose-textarea").input_value()
    # The link is on a line of its own, not glued to the words before it.
    assert text.startswith("look at this\n[chart.png](/user_uploads/"), text
    page.press("#compose-textarea", "Enter")

    pat.go(f"#narrow/dm/{site.ids['mo']}-mo")
    preview = pat.page.locator("article.message .message_inline_image img").first
    preview.wait_for(timeout=10_000)
    wait_until(lambda: preview.evaluate(LOADED))
    # A scaled copy, not the 1600 px original.
    assert preview.evaluate("img => img.naturalHeight") == 300
    assert preview.evaluate("img => new URL(img.src).pathname") == "/thumbnail"
    pat.shot("image-preview")

    preview.click()
    full = pat.page.locator(".lightbox .lightbox-image")
    full.wait_for(timeout=5_000)
    wait_until(lambda: full.evaluate(LOADED))
    assert full.evaluate("img => img.naturalWidth") == 1600
    pat.shot("image-lightbox")
    pat.page.keyboard.press("Escape")
    assert pat.page.locator(".lightbox").count() == 0
    assert mo.errors == [] and pat.errors == []


def test_no_preview_for_someone_the_image_was_not_sent_to(people: Any, site: Site) -> None:
    mo = people("mo")
    mo.page.keyboard.press("x")
    mo.page.fill("#compose-dm", USERS["pat"][0])
    mo.page.press("#compose-dm", "Enter")
    mo.page.set_input_files(
        "#compose-file",
        files=[{"name": "secret.png", "mimeType": "image/png", "buffer": png(64, 64)}],
    )
    wait_until(lambda: "/user_uploads/" in mo.page.locator("#compose-textarea").input_value())
    text = mo.page.locator("#compose-textarea").input_value()
    mo.page.press("#compose-textarea", "Enter")
    uri = text[text.index("(/user_uploads/") + 1 : text.rindex(")")]
    olive = people("olive")
    answer = olive.page.request.get(site.url + "/thumbnail?url=" + uri + "&size=thumbnail")
    assert answer.status == 403
    assert b"WEBP" not in answer.body() and b"PNG" not in answer.body()
    mine = mo.page.request.get(site.url + "/thumbnail?url=" + uri + "&size=thumbnail")
    assert mine.status == 200 and mine.headers["content-type"] == "image/webp"
