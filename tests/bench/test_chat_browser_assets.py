"""Which fetched resources count toward the chat page's JS + CSS budget."""

from __future__ import annotations

import pytest
from bench.chat_browser import asset_kind


@pytest.mark.parametrize(
    ("content_type", "resource_type", "kind"),
    [
        ("text/javascript; charset=utf-8", "script", "js"),
        ("application/javascript", "other", "js"),  # a module preloaded by <link>
        ("text/css", "stylesheet", "css"),
        ("font/ttf", "font", "other"),
        ("image/png", "image", "other"),
        ("application/json", "fetch", None),
        ("text/html; charset=utf-8", "document", None),
    ],
)
def test_asset_kinds(content_type: str, resource_type: str, kind: str | None) -> None:
    assert asset_kind(content_type, resource_type) == kind
