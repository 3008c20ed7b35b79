"""POST /messages/flags, POST /messages/flags/narrow, and the mark-as-read shortcuts."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from atrium.chat import flags, schema
from atrium.chat.actions.message_flags import clamp_window
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error, assert_json_success, listen

pytestmark = pytest.mark.anyio

UM = schema.user_message.c


async def user_flags(chat: ChatHarness, user_id: int) -> dict[int, int]:
    rows = await chat.runtime.db.read(
        lambda conn: conn.all(sa.select(UM.message_id, UM.flags).where(UM.user_id == user_id))
    )
    return {r["message_id"]: r["flags"] for r in rows}


def stream_narrow(name: str) -> list[dict[str, str]]:
    return [{"operator": "stream", "operand": name}]


async def test_flags_by_ids_and_events(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    ids = [await chat.send_stream(chat.hamlet, "Verona", "t", f"m{i}") for i in range(3)]
    probe = await listen(chat, chat.cordelia, ["update_message_flags"])
    body = await api_ok(
        chat, "POST", "/messages/flags", chat.cordelia, messages=ids[:2], op="add", flag="starred"
    )
    assert body["messages"] == ids[:2]
    await api_ok(
        chat, "POST", "/messages/flags", chat.cordelia, messages=ids, op="add", flag="starred"
    )
    first, second = await probe.events()
    assert first["messages"] == ids[:2] and first["op"] == "add" and first["operation"] == "add"
    assert first["flag"] == "starred" and first["all"] is False
    assert second["messages"] == [ids[2]]  # only real changes
    await api_ok(
        chat, "POST", "/messages/flags", chat.cordelia, messages=[ids[0]], op="add", flag="read"
    )
    await api_ok(
        chat, "POST", "/messages/flags", chat.cordelia, messages=[ids[0]], op="remove", flag="read"
    )
    events = await probe.events()
    verona = (await api_ok(chat, "GET", f"/messages/{ids[0]}", chat.cordelia))["message"][
        "stream_id"
    ]
    assert events[-1]["message_details"] == {
        str(ids[0]): {"type": "stream", "stream_id": verona, "topic": "t"}
    }
    bits = await user_flags(chat, chat.cordelia.id)
    assert all(bits[i] & flags.STARRED for i in ids)


@pytest.mark.parametrize(
    ("flag", "op", "msg"),
    [
        ("mentioned", "add", "Flag not editable: 'mentioned'"),
        ("historical", "remove", "Flag not editable: 'historical'"),
        ("bogus", "add", "Invalid flag: 'bogus'"),
        ("is_private", "add", "Invalid flag: 'is_private'"),
        ("read", "toggle", "Invalid message flag operation: 'toggle'"),
    ],
)
async def test_flag_errors_write_nothing(chat: ChatHarness, flag: str, op: str, msg: str) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "x")
    before = await user_flags(chat, chat.cordelia.id)
    assert_json_error(
        await chat.post("/messages/flags", chat.cordelia, messages=[mid], op=op, flag=flag), msg
    )
    assert_json_error(
        await chat.post(
            "/messages/flags/narrow",
            chat.cordelia,
            anchor="newest",
            num_before=1,
            num_after=0,
            narrow=[],
            op=op,
            flag=flag,
        ),
        msg,
    )
    assert await user_flags(chat, chat.cordelia.id) == before


async def test_inaccessible_ids_are_refused(chat: ChatHarness) -> None:
    await chat.make_stream("secret", [chat.hamlet], invite_only=True)
    mid = await chat.send_stream(chat.hamlet, "secret", "t", "x")
    assert_json_error(
        await chat.post("/messages/flags", chat.cordelia, messages=[mid], op="add", flag="starred"),
        "Invalid message(s)",
    )
    assert mid not in await user_flags(chat, chat.cordelia.id)


async def test_historical_rows(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    ids = [await chat.send_stream(chat.hamlet, "Verona", "t", f"m{i}") for i in range(2)]
    # Cordelia never received them but may read them: starring creates historical rows.
    body = await api_ok(
        chat, "POST", "/messages/flags", chat.cordelia, messages=ids, op="add", flag="starred"
    )
    assert body["messages"] == ids
    bits = await user_flags(chat, chat.cordelia.id)
    for mid in ids:
        assert bits[mid] == flags.HISTORICAL | flags.READ | flags.STARRED
    message = (await api_ok(chat, "GET", f"/messages/{ids[0]}", chat.cordelia))["message"]
    assert set(message["flags"]) == {"read", "starred", "historical"}


async def test_flags_narrow_counts_and_fields(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    ids = [await chat.send_stream(chat.hamlet, "Verona", "t", f"m{i}") for i in range(6)]
    await chat.send_stream(chat.cordelia, "Verona", "t", "mine, already read")
    await chat.make_stream("Denmark", [chat.cordelia])
    await chat.send_stream(chat.cordelia, "Denmark", "t", "elsewhere")
    body = await api_ok(
        chat,
        "POST",
        "/messages/flags/narrow",
        chat.cordelia,
        anchor="oldest",
        num_before=0,
        num_after=10,
        narrow=stream_narrow("Verona"),
        op="add",
        flag="read",
    )
    assert body["processed_count"] == 7
    assert body["updated_count"] == 6
    assert body["first_processed_id"] == ids[0]
    assert body["found_oldest"] is True and body["found_newest"] is True
    again = await api_ok(
        chat,
        "POST",
        "/messages/flags/narrow",
        chat.cordelia,
        anchor=ids[2],
        include_anchor=False,
        num_before=0,
        num_after=2,
        narrow=stream_narrow("Verona"),
        op="remove",
        flag="read",
    )
    assert again["processed_count"] == 2 and again["updated_count"] == 2
    assert again["first_processed_id"] == ids[3] and again["last_processed_id"] == ids[4]
    assert again["found_newest"] is False
    empty = await api_ok(
        chat,
        "POST",
        "/messages/flags/narrow",
        chat.cordelia,
        anchor="newest",
        num_before=5,
        num_after=0,
        narrow=[{"operator": "search", "operand": "nothingmatches"}],
        op="add",
        flag="starred",
    )
    assert empty["processed_count"] == 0 and empty["first_processed_id"] is None
    assert empty["last_processed_id"] is None


async def test_first_unread_anchor(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    ids = [await chat.send_stream(chat.hamlet, "Verona", "t", f"m{i}") for i in range(4)]
    await api_ok(
        chat, "POST", "/messages/flags", chat.cordelia, messages=ids[:2], op="add", flag="read"
    )
    body = await api_ok(
        chat,
        "POST",
        "/messages/flags/narrow",
        chat.cordelia,
        anchor="first_unread",
        num_before=0,
        num_after=1,
        narrow=[],
        op="add",
        flag="starred",
    )
    assert body["first_processed_id"] == ids[2] and body["last_processed_id"] == ids[3]


async def test_exclude_anchor_in_middle(chat: ChatHarness) -> None:
    resp = await chat.post(
        "/messages/flags/narrow",
        chat.hamlet,
        anchor=1700,
        num_before=1,
        num_after=1,
        include_anchor=False,
        narrow=[],
        op="add",
        flag="read",
    )
    assert_json_error(resp, "The anchor can only be excluded at an end of the range")
    resp = await chat.post(
        "/messages/flags/narrow",
        chat.hamlet,
        anchor="nonsense",
        num_before=1,
        num_after=1,
        narrow=[],
        op="add",
        flag="read",
    )
    assert_json_error(resp, "Invalid anchor")


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        (10, 10, (10, 10)),
        (6000, 0, (5000, 0)),
        (0, 6000, (0, 5000)),
        (4000, 4000, (2500, 2500)),
        (1000, 4500, (1000, 4000)),
        (4500, 1000, (4000, 1000)),
    ],
)
def test_clamping(before: int, after: int, expected: tuple[int, int]) -> None:
    assert clamp_window(before, after) == expected


async def test_mark_as_read_shortcuts(chat: ChatHarness) -> None:
    verona = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    await chat.make_stream("Denmark", [chat.hamlet, chat.cordelia])
    a = await chat.send_stream(chat.hamlet, "Verona", "a", "1")
    b = await chat.send_stream(chat.hamlet, "Verona", "b", "2")
    c = await chat.send_stream(chat.hamlet, "Denmark", "c", "3")
    d = await chat.send_dm(chat.hamlet, [chat.cordelia], "4")
    probe = await listen(chat, chat.cordelia, ["update_message_flags"])
    await api_ok(
        chat, "POST", "/mark_topic_as_read", chat.cordelia, stream_id=verona, topic_name="A"
    )
    assert (await probe.events())[-1]["messages"] == [a]
    assert_json_error(
        await chat.post("/mark_topic_as_read", chat.cordelia, stream_id=verona, topic_name="zz"),
        "No such topic 'zz'",
    )
    await api_ok(chat, "POST", "/mark_stream_as_read", chat.cordelia, stream_id=verona)
    assert (await probe.events())[-1]["messages"] == [b]
    assert_json_error(
        await chat.post("/mark_stream_as_read", chat.cordelia, stream_id=99999), "Invalid stream ID"
    )
    assert_json_success(await chat.post("/mark_all_as_read", chat.cordelia))
    last = (await probe.events())[-1]
    assert last["messages"] == [c, d] and last["all"] is True
    bits = await user_flags(chat, chat.cordelia.id)
    assert all(bits[m] & flags.READ for m in (a, b, c, d))
