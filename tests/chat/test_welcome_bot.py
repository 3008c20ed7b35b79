"""Welcome Bot: a new person's first direct message, the system bots in the register response,
and DM narrows with a system bot, which show a person only their own conversation with it."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import ROLE_MEMBER
from tests.chat.conftest import ChatHarness, Member, api_ok, assert_json_success

pytestmark = pytest.mark.anyio

WELCOME_BOT = "welcome-bot@zulip.com"


async def created_by_admin(chat: ChatHarness, email: str, name: str) -> Member:
    """A member made through POST /users, as an administrator's screen makes one."""
    body = await api_ok(
        chat, "POST", "/users", chat.iago, email=email, full_name=name, password="pw-123456"
    )
    row = await chat.runtime.db.read(
        lambda conn: conn.one(sa.select(schema.user).where(schema.user.c.id == body["user_id"]))
    )
    return Member(row["id"], row["email"], name, row["api_key"], ROLE_MEMBER)


async def dm_with_bot(chat: ChatHarness, user: Member, bot_id: int) -> list[dict[str, Any]]:
    narrow = [{"operator": "dm", "operand": [bot_id]}]
    body = await api_ok(
        chat, "GET", "/messages", user, anchor="newest", num_before=10, num_after=0, narrow=narrow
    )
    return list(body["messages"])


async def test_a_new_member_gets_welcome_bots_message(chat: ChatHarness) -> None:
    stream_id = await chat.make_stream("town <b>hall</b>", [chat.iago])
    await api_ok(chat, "POST", "/default_streams", chat.iago, stream_id=stream_id)
    newbie = await created_by_admin(chat, "newbie@zulip.test", "Newbie")
    state = await api_ok(chat, "POST", "/register", newbie, fetch_event_types=["realm_user"])
    bots = {b["email"]: b for b in state["cross_realm_bots"]}
    assert bots[WELCOME_BOT]["full_name"] == "Welcome Bot"
    assert bots[WELCOME_BOT]["is_system_bot"] is True
    [welcome] = await dm_with_bot(chat, newbie, bots[WELCOME_BOT]["user_id"])
    assert welcome["sender_email"] == WELCOME_BOT
    assert "welcome to" in welcome["content"]
    # The stream's name is a link, its markup escaped.
    assert "town &lt;b&gt;hall&lt;/b&gt;" in welcome["content"]
    assert "<b>hall</b>" not in welcome["content"]
    assert welcome["flags"] == []  # unread: the first thing to read


async def test_a_bot_gets_no_welcome(chat: ChatHarness) -> None:
    assert_json_success(
        await chat.post("/bots", chat.hamlet, full_name="Helper", short_name="helper")
    )
    state = await api_ok(chat, "POST", "/register", chat.hamlet, fetch_event_types=["realm_user"])
    assert state["cross_realm_bots"] == []


async def test_nobody_reads_anothers_conversation_with_a_system_bot(chat: ChatHarness) -> None:
    first = await created_by_admin(chat, "first@zulip.test", "First")
    await created_by_admin(chat, "second@zulip.test", "Second")
    state = await api_ok(chat, "POST", "/register", first, fetch_event_types=["realm_user"])
    bot_id = next(b["user_id"] for b in state["cross_realm_bots"] if b["email"] == WELCOME_BOT)
    mine = await dm_with_bot(chat, first, bot_id)
    [message] = mine
    assert {r["email"] for r in message["display_recipient"]} == {WELCOME_BOT, "first@zulip.test"}
    # The attack: an older member narrows to the bot, hoping for the newcomers' messages.
    assert await dm_with_bot(chat, chat.hamlet, bot_id) == []
    # By email too.
    narrow = [{"operator": "dm", "operand": WELCOME_BOT}]
    body = await api_ok(
        chat,
        "GET",
        "/messages",
        chat.hamlet,
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow=narrow,
    )
    assert body["messages"] == []
