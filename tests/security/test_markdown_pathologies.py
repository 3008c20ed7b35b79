"""Markdown that used to render in quadratic time: runs of unclosed `[](` made every `[` scan to
the end of the message (a 10,000-character message took about two seconds, on the event loop).
The scans now share one budget per message, and a rendering that runs out of time is refused with
Zulip's "Unable to render message" instead of being stored."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import sqlalchemy as sa
from markdown.inlinepatterns import LinkInlineProcessor

from atrium.chat import rendering, schema
from atrium.chat.actions import messages
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


@pytest.fixture
def slow_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rendering that takes half a second wherever it runs (as a pathological message would)."""

    def slow(content: str, ctx: Any) -> Any:
        time.sleep(0.5)
        return render_markdown(content, ctx)

    monkeypatch.setattr(rendering, "render_markdown", slow)
    monkeypatch.setattr(messages, "render_markdown", slow)


async def _stored_html(chat: ChatHarness, message_id: int | None) -> str:
    """The stored rendering of a message (None: of the last one)."""
    m = schema.message
    query = sa.select(m.c.rendered_content).order_by(m.c.id.desc()).limit(1)
    if message_id is not None:
        query = query.where(m.c.id == message_id)
    return str(await chat.runtime.db.read(lambda conn: conn.scalar(query)))


async def _preview(chat: ChatHarness, content: str) -> str:
    rendered = assert_json_success(
        await chat.post("/messages/render", chat.hamlet, content=content)
    )
    return str(rendered["rendered"])


async def _alongside(chat: ChatHarness, slow: Any) -> list[str]:
    """Run `slow` with a quick request sent meanwhile; the order they finished in."""
    finished: list[str] = []

    async def first() -> None:
        assert_json_success(await slow)
        finished.append("slow")

    async def quick() -> None:
        await asyncio.sleep(0.05)
        assert_json_success(await chat.get("/server_settings", None))
        finished.append("quick")

    await asyncio.gather(first(), quick())
    return finished


async def test_sending_a_slow_message_does_not_hold_other_requests(
    chat: ChatHarness, slow_rendering: None
) -> None:
    # The message was rendered inside its write, on the event loop.
    await chat.make_stream("Verona", [chat.hamlet])
    content = PATHOLOGIES["empty links"]
    send = chat.post(
        "/messages", chat.hamlet, type="stream", to="Verona", topic="t", content=content
    )
    assert await _alongside(chat, send) == ["quick", "slow"]
    stored = await _stored_html(chat, None)
    assert stored == await _preview(chat, content)


async def test_editing_into_a_slow_message_does_not_hold_other_requests(
    chat: ChatHarness, slow_rendering: None
) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    message_id = await chat.send_stream(chat.hamlet, "Verona", "t", "short")
    content = PATHOLOGIES["brackets"]
    edit = chat.patch(f"/messages/{message_id}", chat.hamlet, content=content)
    assert await _alongside(chat, edit) == ["quick", "slow"]
    assert await _stored_html(chat, message_id) == await _preview(chat, content)
