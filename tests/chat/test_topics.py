"""GET /users/me/{stream_id}/topics and POST /streams/{stream_id}/delete_topic."""

from __future__ import annotations

import pytest

from tests.chat.conftest import (
    ChatHarness,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio


async def test_topics_newest_first_case_insensitive(chat: ChatHarness) -> None:
    sid = await chat.make_stream("lobby", [chat.hamlet, chat.cordelia])
    await chat.send_stream(chat.hamlet, "lobby", "alpha", "1")
    await chat.send_stream(chat.hamlet, "lobby", "beta", "2")
    last = await chat.send_stream(chat.hamlet, "lobby", "ALPHA", "3")
    body = await api_ok(chat, "GET", f"/users/me/{sid}/topics", chat.cordelia)
    assert body["topics"][0] == {"name": "ALPHA", "max_id": last}
    assert [t["name"] for t in body["topics"]] == ["ALPHA", "beta"]


async def test_topics_respect_access_and_protected_history(chat: ChatHarness) -> None:
    sid = await chat.make_stream(
        "secret", [chat.hamlet], invite_only=True, history_public_to_subscribers=False
    )
    await chat.send_stream(chat.hamlet, "secret", "before", "1")
    assert_json_error(await chat.get(f"/users/me/{sid}/topics", chat.cordelia), "Invalid stream ID")
    assert_json_error(await chat.get(f"/users/me/{sid}/topics", chat.iago), "Invalid stream ID")
    await chat.subscribe(chat.cordelia, "secret")
    # Cordelia joined after "before": a protected history shows only what she received.
    assert (await api_ok(chat, "GET", f"/users/me/{sid}/topics", chat.cordelia))["topics"] == []
    later = await chat.send_stream(chat.hamlet, "secret", "after", "2")
    topics = (await api_ok(chat, "GET", f"/users/me/{sid}/topics", chat.cordelia))["topics"]
    assert topics == [{"name": "after", "max_id": later}]
    assert_json_error(await chat.get("/users/me/999999/topics", chat.hamlet), "Invalid stream ID")


async def test_delete_topic(chat: ChatHarness) -> None:
    sid = await chat.make_stream("lobby", [chat.hamlet, chat.iago])
    doomed = [await chat.send_stream(chat.hamlet, "lobby", "doomed", str(i)) for i in range(3)]
    kept = await chat.send_stream(chat.hamlet, "lobby", "kept", "stays")
    q = await listen(chat, chat.hamlet, ["delete_message"])
    assert_json_error(
        await chat.post(f"/streams/{sid}/delete_topic", chat.hamlet, topic_name="doomed"),
        "Must be an organization administrator",
        code="UNAUTHORIZED_PRINCIPAL",
    )
    # Feature level 185 answers plain success (`complete` came at 211).
    resp = await chat.post(f"/streams/{sid}/delete_topic", chat.iago, topic_name="DOOMED")
    assert assert_json_success(resp) == {"result": "success", "msg": ""}
    [event] = await q.events()
    assert event["message_ids"] == doomed and event["stream_id"] == sid
    topics = (await api_ok(chat, "GET", f"/users/me/{sid}/topics", chat.hamlet))["topics"]
    assert topics == [{"name": "kept", "max_id": kept}]
    assert_json_error(
        await chat.post(f"/streams/{sid}/delete_topic", chat.iago),
        "Missing 'topic_name' argument",
        code="REQUEST_VARIABLE_MISSING",
    )
