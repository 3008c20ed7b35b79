"""Narrows too large for the database are refused as bad narrows.

The attack: `POST /messages/flags/narrow` (and `GET /messages`) with 5000 `stream` operators or
negated `topic` operators, or a search of thousands of quoted phrases, built a condition nested
deeper than SQLite allows ("Expression tree is too large"), answered as a 500. Now the narrow is
refused up front with Zulip's BAD_NARROW error.
"""

from __future__ import annotations

from typing import Any

import pytest

from atrium.chat.narrow import MAX_NARROW_TERMS
from tests.chat import conftest as chat_fixtures
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error

pytestmark = pytest.mark.anyio

# The chat's harness (its conftest is not this folder's).
chat = chat_fixtures.chat
settings = chat_fixtures.settings

HUGE: dict[str, list[dict[str, Any]]] = {
    "streams": [{"operator": "stream", "operand": "lobby"}] * 5000,
    "negated topics": [
        {"operator": "topic", "operand": f"t{i}", "negated": True} for i in range(5000)
    ],
}


@pytest.mark.parametrize("case", sorted(HUGE))
async def test_huge_narrows_are_bad_narrows(chat: ChatHarness, case: str) -> None:
    await chat.make_stream("lobby", [chat.hamlet])
    narrow = HUGE[case]
    desc = f"too many terms (at most {MAX_NARROW_TERMS})"
    flagged = await chat.post(
        "/messages/flags/narrow", chat.hamlet, anchor="newest", num_before=10, num_after=0,
        narrow=narrow, op="add", flag="read",
    )  # fmt: skip
    assert_json_error(flagged, f"Invalid narrow operator: {desc}", code="BAD_NARROW")
    # A query string holds fewer terms: 1500 in the short pair form, still past SQLite's depth.
    short = [["stream", "lobby"]] * 1500 if case == "streams" else [["-topic", "x"]] * 1500
    listed = await chat.request(
        "GET", "/messages", chat.hamlet,
        {"anchor": "newest", "num_before": 10, "num_after": 0, "narrow": short},
    )  # fmt: skip
    assert_json_error(listed, f"Invalid narrow operator: {desc}", code="BAD_NARROW")


async def test_a_search_of_thousands_of_phrases_is_a_bad_narrow(chat: ChatHarness) -> None:
    await chat.make_stream("lobby", [chat.hamlet])
    words = " ".join(f"w{i}" for i in range(1500))
    await api_ok(
        chat, "POST", "/messages", chat.hamlet, type="stream", to="lobby", topic="t",
        content=words,
    )  # fmt: skip
    operand = " ".join(f'"w{i}"' for i in range(1500))
    listed = await chat.request(
        "GET", "/messages", chat.hamlet,
        {"anchor": "newest", "num_before": 10, "num_after": 0,
         "narrow": [{"operator": "search", "operand": operand}]},
    )  # fmt: skip
    assert listed.status_code == 400, listed.text
    assert listed.json()["code"] == "BAD_NARROW"


async def test_a_narrow_at_the_bound_still_works(chat: ChatHarness) -> None:
    await chat.make_stream("lobby", [chat.hamlet])
    narrow = [{"operator": "topic", "operand": f"t{i}", "negated": True} for i in range(99)]
    narrow.append({"operator": "stream", "operand": "lobby"})
    body = await api_ok(
        chat, "GET", "/messages", chat.hamlet, anchor="newest", num_before=10, num_after=0,
        narrow=narrow,
    )  # fmt: skip
    assert body["messages"] == []
