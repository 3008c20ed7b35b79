"""Every path that stores a long message renders it before its write, in a rendering thread:
scheduling, editing a scheduled message, its delivery and an outgoing-webhook bot's answer used
to render inside the write, where a pathological message held the event loop."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from atrium.chat import outgoing_webhooks, rendering
from atrium.chat.actions import messages
from atrium.chat.delivery import ScheduledDelivery
from atrium.chat.markdown import render_markdown
from tests.chat.conftest import ChatHarness, api_ok, chat
from tests.chat.test_outgoing_webhooks import (
    Endpoint,
    endpoint,
    make_outgoing_bot,
    send,
    settings,
)

pytestmark = pytest.mark.anyio
# `settings` opens loopback to the stand-in integration, as the webhook tests do.
__all__ = ["chat", "endpoint", "settings"]

LONG = "A long message with *emphasis*. " * 20


@pytest.fixture
def render_threads(monkeypatch: pytest.MonkeyPatch) -> dict[str, set[str]]:
    """The names of the threads each content was rendered in."""
    seen: dict[str, set[str]] = {}

    def recording(content: str, ctx: Any) -> Any:
        seen.setdefault(content, set()).add(threading.current_thread().name)
        return render_markdown(content, ctx)

    monkeypatch.setattr(rendering, "render_markdown", recording)
    monkeypatch.setattr(messages, "render_markdown", recording)
    return seen


def _loop_thread() -> str:
    return threading.current_thread().name  # the tests run on the server's event loop


async def test_scheduling_renders_before_the_write(
    chat: ChatHarness, render_threads: dict[str, set[str]]
) -> None:
    verona = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    now = time.time()
    created = await api_ok(
        chat,
        "POST",
        "/scheduled_messages",
        chat.hamlet,
        type="stream",
        to=verona,
        topic="t",
        content=LONG + "first",
        scheduled_delivery_timestamp=int(now) + 100,
    )
    await api_ok(
        chat,
        "PATCH",
        f"/scheduled_messages/{created['scheduled_message_id']}",
        chat.hamlet,
        content=LONG + "edited",
    )
    clock = [now + 150]
    assert await ScheduledDelivery(chat.runtime, clock=lambda: clock[0]).deliver_due() == 1
    assert render_threads[LONG + "first"]
    assert _loop_thread() not in render_threads[LONG + "first"]
    # Rendered twice: when edited, and when delivered; neither inside a write.
    assert _loop_thread() not in render_threads[LONG + "edited"]
    newest = await api_ok(
        chat, "GET", "/messages", chat.cordelia, anchor="newest", num_before=1, num_after=0
    )
    assert "<em>emphasis</em>" in newest["messages"][0]["content"]


async def test_a_bots_long_answer_renders_before_the_write(
    chat: ChatHarness, endpoint: Endpoint, render_threads: dict[str, set[str]]
) -> None:
    answer = LONG + "from the bot"
    endpoint.body = json.dumps({"content": answer}).encode()
    await make_outgoing_bot(chat, chat.hamlet, endpoint.url)
    await chat.make_stream("lobby", [chat.hamlet, chat.cordelia])
    await send(chat, chat.cordelia, "plans", "@**Echo Bot** hello")
    await outgoing_webhooks.wait_for_pending()
    assert endpoint.received, "the bot was not called"
    assert answer in render_threads, list(render_threads)
    assert _loop_thread() not in render_threads[answer]
