"""Messages of an archived (deactivated) stream: one rule on every path.

Zulip makes an archived stream private and ends every subscription, so nobody may read its
messages; every path that reads, changes, moves, deletes or flags one answers
`Invalid message(s)` alike, and listings leave them out. The review's reproducer: moving such
a message (topic change) used to fail with an AssertionError while editing or deleting it
succeeded.
"""

from __future__ import annotations

import pytest

from atrium.chat import flags
from tests.chat.conftest import ChatHarness, Member, assert_json_error, assert_json_success

pytestmark = pytest.mark.anyio


async def _archived_message(chat: ChatHarness) -> tuple[int, int]:
    sid = await chat.make_stream("doomed", [chat.desdemona, chat.hamlet])
    await chat.make_stream("lifeboat", [chat.desdemona, chat.hamlet])
    mid = await chat.send_stream(chat.hamlet, "doomed", "a", "last words")
    assert_json_success(await chat.delete(f"/streams/{sid}", chat.desdemona))
    return sid, mid


@pytest.mark.parametrize("who", ["desdemona", "hamlet"])
async def test_every_path_calls_an_archived_message_invalid(chat: ChatHarness, who: str) -> None:
    """The owner (an administrator) and the sender alike."""
    user: Member = chat.users[who]
    _sid, mid = await _archived_message(chat)
    lifeboat = await chat.runtime.db.read(
        lambda conn: conn.scalar("SELECT id FROM stream WHERE name = 'lifeboat'")
    )
    attempts = [
        ("GET", f"/messages/{mid}", {}),
        ("GET", f"/messages/{mid}/history", {}),
        ("PATCH", f"/messages/{mid}", {"topic": "b"}),
        ("PATCH", f"/messages/{mid}", {"topic": "b", "propagate_mode": "change_all"}),
        ("PATCH", f"/messages/{mid}", {"content": "rewritten"}),
        ("PATCH", f"/messages/{mid}", {"stream_id": lifeboat}),
        ("POST", f"/messages/{mid}/reactions", {"emoji_name": "smile"}),
        ("DELETE", f"/messages/{mid}/reactions", {"emoji_name": "smile"}),
        ("GET", f"/messages/{mid}/read_receipts", {}),
        ("DELETE", f"/messages/{mid}", {}),
        ("POST", "/messages/flags", {"messages": [mid], "op": "add", "flag": "starred"}),
        ("POST", "/messages/flags", {"messages": [mid], "op": "remove", "flag": "read"}),
    ]
    for method, path, params in attempts:
        resp = await chat.request(method, path, user, params)
        assert_json_error(resp, "Invalid message(s)")
    # Nothing changed underneath.
    row = await chat.runtime.db.read(
        lambda conn: conn.one(f"SELECT content, topic, stream_id FROM message WHERE id = {mid}")
    )
    assert (row["content"], row["topic"]) == ("last words", "a")


@pytest.mark.parametrize("who", ["desdemona", "hamlet"])
async def test_listings_leave_archived_messages_out(chat: ChatHarness, who: str) -> None:
    user: Member = chat.users[who]
    _sid, mid = await _archived_message(chat)
    kept = await chat.send_stream(chat.hamlet, "lifeboat", "a", "still here")
    dm = await chat.send_dm(chat.hamlet, [chat.desdemona], "a direct message")
    window = {"anchor": "newest", "num_before": 100, "num_after": 0}
    for narrow in (
        [],
        [{"operator": "search", "operand": "last"}],
        [{"operator": "topic", "operand": "a"}],
    ):
        body = assert_json_success(await chat.get("/messages", user, **window, narrow=narrow))
        ids = [m["id"] for m in body["messages"]]
        assert mid not in ids
    body = assert_json_success(await chat.get("/messages", user, **window))
    assert {kept, dm} <= {m["id"] for m in body["messages"]}
    body = assert_json_success(
        await chat.get("/messages/matches_narrow", user, msg_ids=[mid, kept], narrow=[])
    )
    assert str(mid) not in body["messages"]
    body = assert_json_success(
        await chat.post(
            "/messages/flags/narrow",
            user,
            anchor="oldest",
            num_before=0,
            num_after=100,
            narrow=[],
            op="add",
            flag="starred",
        )
    )
    assert body["updated_count"] >= 2  # the lifeboat message and the direct message
    bits = await chat.runtime.db.read(
        lambda conn: conn.scalar(
            f"SELECT flags FROM user_message WHERE message_id = {mid} AND user_id = {user.id}"
        )
    )
    assert not int(bits) & flags.BIT["starred"]


async def test_a_new_stream_of_the_same_name_does_not_adopt_the_messages(
    chat: ChatHarness,
) -> None:
    _sid, mid = await _archived_message(chat)
    await chat.make_stream("doomed", [chat.hamlet])
    body = assert_json_success(
        await chat.get(
            "/messages",
            chat.hamlet,
            anchor="newest",
            num_before=10,
            num_after=0,
            narrow=[{"operator": "stream", "operand": "doomed"}],
        )
    )
    assert mid not in [m["id"] for m in body["messages"]]
