"""GET /messages/matches_narrow: the received messages among some ids that match a narrow."""

from __future__ import annotations

import pytest

from tests.chat.conftest import ChatHarness, api_ok, assert_json_error

pytestmark = pytest.mark.anyio


async def test_matches_narrow_with_search_highlights(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    await chat.make_stream("secret", [chat.hamlet], invite_only=True)
    deploy = await chat.send_stream(chat.hamlet, "Verona", "Deploy plans", "we deploy today")
    lunch = await chat.send_stream(chat.hamlet, "Verona", "lunch", "pizza")
    hidden = await chat.send_stream(chat.hamlet, "secret", "deploy", "deploy secretly")
    ids = [deploy, lunch, hidden, 999999]

    body = await api_ok(
        chat, "GET", "/messages/matches_narrow", chat.cordelia, msg_ids=ids,
        narrow=[{"operator": "search", "operand": "deploy"}],
    )  # fmt: skip
    assert body["messages"] == {
        str(deploy): {
            "match_content": '<p>we <span class="highlight">deploy</span> today</p>',
            "match_subject": '<span class="highlight">Deploy</span> plans',
        }
    }
    body = await api_ok(
        chat, "GET", "/messages/matches_narrow", chat.cordelia, msg_ids=ids,
        narrow=[["stream", "Verona"], ["topic", "lunch"]],
    )  # fmt: skip
    assert body["messages"] == {
        str(lunch): {"match_content": "<p>pizza</p>", "match_subject": "lunch"}
    }
    body = await api_ok(
        chat, "GET", "/messages/matches_narrow", chat.hamlet, msg_ids=ids,
        narrow=[["search", "deploy"]],
    )  # fmt: skip
    assert sorted(body["messages"]) == sorted([str(deploy), str(hidden)])
    assert_json_error(
        await chat.get(
            "/messages/matches_narrow", chat.hamlet, msg_ids=ids, narrow=[["bogus", "x"]]
        ),
        "Invalid narrow operator: unknown operator bogus",
        code="BAD_NARROW",
    )
