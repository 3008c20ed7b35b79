"""A stream addressed by id is named in an error only to those who may see it.

Zulip 7.0 answers `Not authorized to send to stream '<name>'` to anyone, so walking ids lists
private stream names. Here a sender who may not see the stream gets the same answer as for an
id with no stream; a sender who may see it, or who named it, gets the name.
"""

from __future__ import annotations

import pytest

from tests.chat.conftest import ChatHarness, Member, assert_json_error

pytestmark = pytest.mark.anyio

SECRET = "ultrasecret-qz7"


async def _send(chat: ChatHarness, who: Member, path: str, to: object) -> object:
    params: dict[str, object] = {"type": "stream", "to": to, "topic": "t", "content": "x"}
    if path == "/scheduled_messages":
        params["scheduled_delivery_timestamp"] = 4_000_000_000
    return await chat.post(path, who, **params)


@pytest.mark.parametrize("path", ["/messages", "/scheduled_messages"])
async def test_private_stream_id_is_unknown_to_outsiders(chat: ChatHarness, path: str) -> None:
    sid = await chat.make_stream(SECRET, [chat.iago], invite_only=True)
    missing = sid + 1000
    for who in (chat.hamlet, chat.polonius, chat.shiva):
        resp = await _send(chat, who, path, sid)
        body = assert_json_error(
            resp, f"Stream with ID '{sid}' does not exist", code="STREAM_DOES_NOT_EXIST"
        )
        assert SECRET not in resp.text
        unknown = await _send(chat, who, path, missing)
        assert unknown.json()["msg"] == f"Stream with ID '{missing}' does not exist"
        assert body.keys() == unknown.json().keys()


async def test_guest_does_not_learn_an_unsubscribed_public_stream(chat: ChatHarness) -> None:
    sid = await chat.make_stream("openpub-qz7", [chat.hamlet])
    resp = await _send(chat, chat.polonius, "/messages", sid)
    assert_json_error(resp, f"Stream with ID '{sid}' does not exist", code="STREAM_DOES_NOT_EXIST")
    assert "openpub" not in resp.text


async def test_those_who_may_see_the_stream_are_told_its_name(chat: ChatHarness) -> None:
    sid = await chat.make_stream(SECRET, [chat.iago], invite_only=True)
    # An administrator sees every private stream's name, but may not post unsubscribed.
    resp = await _send(chat, chat.desdemona, "/messages", sid)
    assert_json_error(resp, f"Not authorized to send to stream '{SECRET}'")
    # Who names the stream hears its name back, as in Zulip.
    resp = await _send(chat, chat.hamlet, "/messages", SECRET)
    assert_json_error(resp, f"Not authorized to send to stream '{SECRET}'")
