"""External media in chat messages: a video link used to become `<video src>` on the sender's
host, so every reader's browser fetched it (leaking addresses and user agents). Videos are now
previewed only through Camo (Zulip's URL scheme), and the pages' CSP lets images and media come
from our origin, Gravatar and the Camo origin only."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from atrium.chat.markdown import previews, render_markdown
from atrium.chat.markdown.context import RenderContext
from atrium.core.page_headers import content_security_policy, origin_of, page_headers
from tests.chat.conftest import ChatHarness, assert_json_success, chat, settings

pytestmark = pytest.mark.anyio
__all__ = ["chat", "settings"]

VIDEO = "https://evil.example/v.mp4"
CAMO = "https://camo.example.org/"
KEY = "camo-secret"


def _zulip_camo(url: str) -> str:
    digest = hmac.new(KEY.encode(), url.encode(), hashlib.sha1).hexdigest()
    return f"{CAMO}{digest}/{url.encode().hex()}"


async def _rendered(chat: ChatHarness, content: str) -> str:
    response = await chat.post("/messages/render", chat.hamlet, content=content)
    rendered: str = assert_json_success(response)["rendered"]
    return rendered


async def test_no_video_preview_without_camo(chat: ChatHarness) -> None:
    html = await _rendered(chat, VIDEO)
    assert "<video" not in html
    assert html == f'<p><a href="{VIDEO}">{VIDEO}</a></p>'


async def test_video_preview_through_camo(
    chat: ChatHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    previews.configure_camo(CAMO, KEY)
    try:
        html = await _rendered(chat, VIDEO)
    finally:
        previews.configure_camo(None, None)
    assert f'src="{_zulip_camo(VIDEO)}"' in html
    assert 'src="https://evil.example' not in html


def test_a_proxy_needs_its_key() -> None:
    previews.configure_camo(CAMO, None)
    try:
        assert "<video" not in render_markdown(VIDEO, RenderContext()).html
    finally:
        previews.configure_camo(None, None)


def test_image_previews_stay_local() -> None:
    html = render_markdown("https://evil.example/p.png", RenderContext()).html
    sources = [part.split('"')[0] for part in html.split('src="')[1:]]
    assert sources and all(src.startswith("/thumbnail?") for src in sources)


def test_csp_allows_no_other_hosts() -> None:
    policy = dict(d.split(" ", 1) for d in content_security_policy().split("; "))
    assert policy["img-src"] == "'self' data: blob: https://secure.gravatar.com"
    assert policy["media-src"] == "'self' blob:"
    with_camo = page_headers(origin_of(CAMO))["Content-Security-Policy"]
    assert "media-src 'self' blob: https://camo.example.org;" in with_camo
    assert "img-src 'self' data: blob: https://secure.gravatar.com https://camo.example.org" in (
        with_camo
    )


async def test_login_page_csp(chat: ChatHarness) -> None:
    response = await chat.client.get("/login")
    csp = response.headers["content-security-policy"]
    assert " https:;" not in csp and not csp.endswith(" https:")
