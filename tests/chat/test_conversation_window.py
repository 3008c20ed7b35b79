"""The constant-statement window of stream and topic narrows equals the general narrow path.

`window_rows(light=True)` serves `stream` and `stream` + `topic` narrows with the statements of
`conversation_window`; `light=False` goes through `compile_narrow`. Both must give the same rows,
flags and `found_*` for every kind of reader (subscribed, subscribed late to a stream with or
without public history, not subscribed, guest) and every anchor, and the same errors.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from atrium.chat.errors import ChatError
from atrium.chat.narrow import parse_narrow
from atrium.chat.queries.conversation_window import LIGHT_ROW, conversation_operands
from atrium.chat.queries.messages import window_rows
from tests.chat.conftest import ChatHarness

pytestmark = pytest.mark.anyio


def _id_and_flags(row: Any) -> tuple[int, Any]:
    if isinstance(row, tuple):  # a light row
        return int(row[LIGHT_ROW.ID]), row[LIGHT_ROW.FLAGS]
    return int(row["id"]), row["user_flags"]


def _summary(window: Any) -> tuple[Any, ...]:
    rows = [_id_and_flags(r) for r in window.rows]
    return (window.anchor, rows, window.found_anchor, window.found_oldest, window.found_newest)


async def test_conversation_operands_picks_only_plain_stream_and_topic_narrows() -> None:
    def operands(raw: list[Any]) -> Any:
        return conversation_operands(parse_narrow(raw))

    assert operands([["stream", "Verona"]]) == ("Verona", None)
    assert operands([["topic", "lunch"], ["stream", "Verona"]]) == ("Verona", "lunch")
    assert operands([{"operator": "stream", "operand": 7}]) == (7, None)
    assert operands([]) is None
    assert operands([["topic", "lunch"]]) is None
    assert operands([["stream", "Verona"], ["sender", "a@b.c"]]) is None
    assert operands([["stream", "Verona"], ["stream", "Denmark"]]) is None
    negated_topic = {"operator": "topic", "operand": "x", "negated": True}
    assert operands([["stream", "Verona"], negated_topic]) is None
    assert operands([["stream", "Verona"], ["near", "5"]]) is None


async def test_conversation_window_equals_the_general_path(chat: ChatHarness) -> None:
    hamlet, cordelia, iago, polonius = chat.hamlet, chat.cordelia, chat.iago, chat.polonius
    await chat.make_stream("Verona", [hamlet, iago])
    await chat.make_stream(
        "Secret", [hamlet], invite_only=True, history_public_to_subscribers=False
    )
    await chat.make_stream("Club", [hamlet], invite_only=True, history_public_to_subscribers=True)
    ids: list[int] = []
    for i in range(12):
        for stream in ("Verona", "Secret", "Club"):
            topic = ("Lunch", "lunch", "deploy")[i % 3]
            ids.append(await chat.send_stream(hamlet, stream, topic, f"message {i}"))
        if i == 5:  # cordelia joins halfway: before that she received nothing
            for stream in ("Verona", "Secret", "Club"):
                await chat.subscribe(cordelia, stream)
    await chat.post("/messages/flags", cordelia, messages=ids[-6:], op="add", flag="starred")
    await chat.post("/messages/flags", hamlet, messages=ids[:9], op="add", flag="read")
    middle = ids[len(ids) // 2]
    anchors: list[int | str] = ["newest", "oldest", middle, middle + 1, ids[0], ids[-1], 10**9]
    narrows: list[list[Any]] = []
    for stream in ("Verona", "Secret", "Club"):
        narrows.append([["stream", stream]])
        narrows += [[["stream", stream], ["topic", t]] for t in ("lunch", "DEPLOY", "none")]
    readers = [hamlet, cordelia, iago, polonius]
    for reader, narrow, anchor in itertools.product(readers, narrows, anchors):
        user = await chat.acting(reader)
        terms = parse_narrow(narrow)
        for before, after, include in ((3, 0, True), (0, 4, False), (2, 2, True), (50, 50, True)):
            args = (user, terms, anchor, before, after, include)

            def both(conn: Any, args: tuple[Any, ...] = args) -> tuple[Any, Any]:
                return (
                    _summary(window_rows(conn, *args, light=True)),
                    _summary(window_rows(conn, *args, light=False)),
                )

            fast, general = await chat.runtime.db.read(both)
            assert fast == general, (reader.email, narrow, anchor, before, after)


async def test_conversation_window_refuses_an_unknown_stream_as_the_general_path(
    chat: ChatHarness,
) -> None:
    user = await chat.acting(chat.hamlet)
    for light in (True, False):
        terms = parse_narrow([["stream", "Nowhere"], ["topic", "x"]])
        with pytest.raises(ChatError) as caught:
            await chat.runtime.db.read(
                lambda conn, light=light, terms=terms: window_rows(
                    conn, user, terms, "newest", 10, 0, True, light=light
                )
            )
        assert caught.value.code == "BAD_NARROW"
        assert "unknown stream Nowhere" in str(caught.value.body())
