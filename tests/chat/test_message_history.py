"""GET /messages/{message_id}/history: Zulip's edit-history snapshots, oldest first."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.queries.message_history import html_diff
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error

pytestmark = pytest.mark.anyio


async def test_history_of_content_topic_and_stream_edits(chat: ChatHarness) -> None:
    verona = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    denmark = await chat.make_stream("Denmark", [chat.hamlet, chat.cordelia])
    mid = await chat.send_stream(chat.hamlet, "Verona", "plans", "hello old world")
    body = await api_ok(chat, "GET", f"/messages/{mid}/history", chat.cordelia)
    [original] = body["message_history"]
    assert original["content"] == "hello old world"
    assert original["rendered_content"] == "<p>hello old world</p>"
    assert original["topic"] == "plans" and original["user_id"] == chat.hamlet.id
    assert set(original) == {"content", "rendered_content", "timestamp", "topic", "user_id"}

    await api_ok(chat, "PATCH", f"/messages/{mid}", chat.hamlet, content="hello new world")
    await api_ok(chat, "PATCH", f"/messages/{mid}", chat.cordelia, topic="schemes")
    await api_ok(chat, "PATCH", f"/messages/{mid}", chat.hamlet, stream_id=denmark)
    body = await api_ok(chat, "GET", f"/messages/{mid}/history", chat.cordelia)
    first, edited, renamed, moved = body["message_history"]
    assert first["content"] == "hello old world" and first["topic"] == "plans"
    assert edited["content"] == "hello new world"
    assert edited["prev_content"] == "hello old world"
    assert edited["prev_rendered_content"] == "<p>hello old world</p>"
    assert edited["content_html_diff"] == (
        '<div><p>hello <span class="highlight_text_inserted">new </span>'
        '<span class="highlight_text_deleted">old </span>world</p></div>'
    )
    assert edited["topic"] == "plans" and "prev_topic" not in edited
    assert edited["user_id"] == chat.hamlet.id
    assert renamed["topic"] == "schemes" and renamed["prev_topic"] == "plans"
    assert renamed["user_id"] == chat.cordelia.id and "prev_content" not in renamed
    assert renamed["content"] == "hello new world"
    assert moved["prev_stream"] == verona and moved["stream"] == denmark
    assert moved["topic"] == "schemes" and "prev_topic" not in moved
    assert [s["timestamp"] for s in body["message_history"]] == sorted(
        s["timestamp"] for s in body["message_history"]
    )


async def test_history_access_and_realm_setting(chat: ChatHarness) -> None:
    await chat.make_stream("secret", [chat.hamlet], invite_only=True)
    mid = await chat.send_stream(chat.hamlet, "secret", "t", "x")
    assert_json_error(
        await chat.get(f"/messages/{mid}/history", chat.cordelia), "Invalid message(s)"
    )
    assert_json_error(await chat.get("/messages/999999/history", chat.hamlet), "Invalid message(s)")
    await chat.runtime.db.write(
        lambda conn: conn.execute(sa.update(schema.realm).values(allow_edit_history=False))
    )
    assert_json_error(
        await chat.get(f"/messages/{mid}/history", chat.hamlet),
        "Message edit history is disabled in this organization",
    )


def test_html_diff_marks_words() -> None:
    assert html_diff("<p>a b</p>", "<p>a b</p>") == "<div><p>a b</p></div>"
    assert html_diff("<p>hello world</p>", "<p>hello</p>") == (
        '<div><p>hello <span class="highlight_text_deleted">world</span></p></div>'
    )
    assert html_diff("<p>x</p>", "<p>x</p><p>y z</p>") == (
        '<div><p>x</p><p><span class="highlight_text_inserted">y z</span></p></div>'
    )
