"""Inline styles in wikitext: anything that makes readers' browsers fetch a URL the editor chose
(`image-set()` got through before) or run script is replaced by MediaWiki's
`/* insecure input */`, after escapes and comments are undone."""

from __future__ import annotations

import httpx
import pytest

from atrium.wiki.wikitext.html.css import INSECURE, check_css
from tests.wiki.conftest import WikiHarness, client, wiki

pytestmark = pytest.mark.anyio


@pytest.fixture
def service_under_test() -> str:
    """The database these tests get is the wiki's."""
    return "wiki"


__all__ = ["client", "wiki"]

UNSAFE = [
    "background-image: image-set('https://evil.example/t.png' 1x)",
    "background: -webkit-image-set(url(https://evil.example/t2.png) 1x)",
    "background: image('https://evil.example/t.png')",
    "background: url(https://evil.example/t.png)",
    "background: u\\72l(https://evil.example/t.png)",
    "background: \\75 \\72 \\6c (https://evil.example/t.png)",
    "width: expression(alert(1))",
    "width: expression/**/(alert(1))",
    "width: ｅｘｐｒｅｓｓｉｏｎ(alert(1))",
    "filter: progid:DXImageTransform.Microsoft.Alpha(opacity=50)",
    "accelerator: true",
    "-o-link: 'https://evil.example/'",
    "-o-link-source: current",
    "-o-replace: 'x'",
    "content: attr(title url)",
    "behavior: url(x.htc)",
    "-moz-binding: url(x.xml#y)",
]


@pytest.mark.parametrize("style", UNSAFE)
def test_unsafe_styles_are_replaced(style: str) -> None:
    assert check_css(style) == INSECURE


@pytest.mark.parametrize(
    "style", ["color: red; font-weight: bold", "width: 10em; float: right", "position: fixed"]
)
def test_plain_styles_are_kept(style: str) -> None:
    assert check_css(style) == style


async def test_image_set_never_reaches_the_page(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page(
        "Styled",
        "<span style=\"background-image: image-set('https://evil.example/t.png' 1x)\">x</span>"
        '<div style="color: red">y</div>',
    )
    page = (await client.get("/wiki/Styled")).text
    assert "evil.example" not in page
    assert '<span style="/* insecure input */">x</span>' in page
    assert '<div style="color: red">y</div>' in page
