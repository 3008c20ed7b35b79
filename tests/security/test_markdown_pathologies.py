"""Markdown that used to render in quadratic time: runs of unclosed `[](` made every `[` scan to
the end of the message (a 10,000-character message took about two seconds, on the event loop).
The scans now share one budget per message, and a rendering that runs out of time is refused with
Zulip's "Unable to render message" instead of being stored."""

from __future__ import annotations

from typing import Any

import pytest
from markdown.inlinepatterns import LinkInlineProcessor

from atrium.chat import schema
from atrium.chat.markdown import engine, render_markdown
from atrium.chat.markdown.context import EMPTY_CONTEXT
from tests.chat.conftest import ChatHarness, assert_json_error, assert_json_success, chat, settings

pytestmark = pytest.mark.anyio
__all__ = ["chat", "settings"]

PATHOLOGIES = {
    "empty links": "[](" * 3333 + "[",
    "texts": ("[a](" * 2500),
    "texts and spaces": ("[a]( " * 2000),
    "unclosed urls": ("[a](b " * 1666),
    "closed at the end": "[](" * 3332 + ")",
    "brackets": "[" * 10000,
}


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Characters read by the upstream link scans, per call."""
    counts: list[int] = []
    for name in ("getText", "getLink"):
        original = getattr(LinkInlineProcessor, name)

        def counting(self: Any, data: str, index: int, original: Any = original) -> Any:
            result = original(self, data, index)
            counts.append(result[-2] - index)
            return result

        monkeypatch.setattr(LinkInlineProcessor, name, counting)
    return counts


@pytest.mark.parametrize("name", sorted(PATHOLOGIES))
def test_link_scanning_is_bounded(name: str, scanned: list[int]) -> None:
    content = PATHOLOGIES[name]
    assert len(content) <= 10_000
    result = render_markdown(content, EMPTY_CONTEXT)
    assert not result.failed
    # About 16 million characters before: every `[` read to the end of the message.
    assert sum(scanned) < 100_000


def test_links_still_render(scanned: list[int]) -> None:
    content = "see [x](https://a.example/b_(c)) and [y](https://b.example) " * 100
    html = render_markdown(content, EMPTY_CONTEXT).html
    assert html.count('<a href="https://a.example/b_(c)">x</a>') == 100
    assert html.count('<a href="https://b.example">y</a>') == 100


async def test_pathological_message_sends(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    response = await chat.post(
        "/messages",
        chat.hamlet,
        type="stream",
        to="Verona",
        topic="links",
        content=PATHOLOGIES["empty links"],
    )
    assert_json_success(response)


async def test_rendering_out_of_time_is_refused(
    chat: ChatHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    before = await chat.count(schema.message)
    monkeypatch.setattr(engine, "_time_budget", 0.0)
    response = await chat.post(
        "/messages", chat.hamlet, type="stream", to="Verona", topic="t", content="*hello*"
    )
    assert_json_error(response, "Unable to render message")
    assert await chat.count(schema.message) == before
    preview = await chat.post("/messages/render", chat.hamlet, content="*hello*")
    assert_json_error(preview, "Unable to render message")
