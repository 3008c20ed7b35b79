"""GET/POST /drafts, PATCH/DELETE /drafts/{id}: the Draft resource's rules and `drafts` events."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error, listen

pytestmark = pytest.mark.anyio


def draft(**changes: Any) -> dict[str, Any]:
    return {"type": "", "to": [], "topic": "", "content": "body", **changes}


async def test_create_list_edit_delete(chat: ChatHarness) -> None:
    verona = await chat.make_stream("Verona", [chat.hamlet])
    probe = await listen(chat, chat.hamlet, ["drafts"])
    body = await api_ok(
        chat,
        "POST",
        "/drafts",
        chat.hamlet,
        drafts=[
            draft(type="stream", to=[verona], topic="draft topic", content="draft body"),
            draft(content="unaddressed", timestamp=1000),
            draft(type="private", to=[chat.cordelia.id], content="to cordelia"),
        ],
    )
    first, second, third = body["ids"]
    listed = await api_ok(chat, "GET", "/drafts", chat.hamlet)
    assert listed["count"] == 3
    # Most recently edited first; the server filled in the missing timestamps.
    assert [d["id"] for d in listed["drafts"]] == [third, first, second]
    assert listed["drafts"][2] == {
        "id": second,
        "type": "",
        "to": [],
        "topic": "",
        "content": "unaddressed",
        "timestamp": 1000,
    }
    assert listed["drafts"][1]["to"] == [verona]
    await api_ok(
        chat,
        "PATCH",
        f"/drafts/{first}",
        chat.hamlet,
        draft=draft(type="stream", to=[verona], topic="draft topic", content="edited draft"),
    )
    await api_ok(chat, "DELETE", f"/drafts/{second}", chat.hamlet)
    listed = await api_ok(chat, "GET", "/drafts", chat.hamlet)
    assert {d["content"] for d in listed["drafts"]} == {"edited draft", "to cordelia"}
    add, update, remove = await probe.events()
    assert add["op"] == "add" and [d["id"] for d in add["drafts"]] == body["ids"]
    assert update["op"] == "update" and update["draft"]["content"] == "edited draft"
    assert remove == {**remove, "op": "remove", "draft_id": second}
    # Other users see nothing of it.
    assert (await api_ok(chat, "GET", "/drafts", chat.cordelia))["count"] == 0


@pytest.mark.parametrize(
    ("bad", "msg"),
    [
        (
            {"type": "stream", "to": [0, 0], "topic": "t"},
            "Must specify exactly 1 stream ID for stream messages",
        ),
        (
            {"type": "stream", "to": [], "topic": "t"},
            "Must specify exactly 1 stream ID for stream messages",
        ),
        ({"type": "stream", "to": [0], "topic": "a\x00b"}, "Topic must not contain null bytes"),
        ({"content": "a\x00b"}, "Message must not contain null bytes"),
        ({"content": "   "}, "Message must not be empty"),
        ({"timestamp": -5}, "Timestamp must not be negative."),
        ({"type": "stream", "to": [99999], "topic": "t"}, "Invalid stream ID"),
        ({"type": "private", "to": [99999]}, "Invalid user ID 99999"),
        ({"type": "bogus"}, "Invalid drafts[1]['type']"),
        ({"id": 5}, "drafts[1]['id'] is not allowed"),
    ],
)
async def test_invalid_drafts_write_nothing(
    chat: ChatHarness, bad: dict[str, Any], msg: str
) -> None:
    verona = await chat.make_stream("Verona", [chat.hamlet])
    if bad.get("to") and bad["to"][0] == 0:
        bad = {**bad, "to": [verona if i == 0 else i for i in bad["to"]]}
    resp = await chat.post("/drafts", chat.hamlet, drafts=[draft(), draft(**bad)])
    assert_json_error(resp, msg)
    assert await chat.count(schema.draft) == 0


async def test_missing_or_foreign_draft(chat: ChatHarness) -> None:
    [mine] = (await api_ok(chat, "POST", "/drafts", chat.hamlet, drafts=[draft()]))["ids"]
    for user, draft_id in ((chat.hamlet, 999999), (chat.cordelia, mine)):
        assert_json_error(
            await chat.patch(f"/drafts/{draft_id}", user, draft=draft(content="x")),
            "Draft does not exist",
            status=404,
        )
        assert_json_error(
            await chat.delete(f"/drafts/{draft_id}", user), "Draft does not exist", 404
        )
    listed = await api_ok(chat, "GET", "/drafts", chat.hamlet)
    assert listed["drafts"][0]["content"] == "body"


async def test_synchronization_disabled(chat: ChatHarness) -> None:
    await chat.runtime.db.write(
        lambda conn: conn.execute(
            sa.update(schema.user)
            .where(schema.user.c.id == chat.hamlet.id)
            .values(enable_drafts_synchronization=False)
        )
    )
    msg = "User has disabled synchronizing drafts."
    assert_json_error(await chat.get("/drafts", chat.hamlet), msg)
    assert_json_error(await chat.post("/drafts", chat.hamlet, drafts=[draft()]), msg)
    assert await chat.count(schema.draft) == 0
