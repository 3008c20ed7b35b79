"""A user's `email_address_visibility`: the stand-in API address and who sees the real one."""

from __future__ import annotations

from typing import Any

import pytest

from atrium.chat.queries.users import fake_email_domain
from tests.chat.conftest import (
    ChatHarness,
    Member,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio

EVERYONE, MEMBERS, ADMINS, NOBODY, MODERATORS = 1, 2, 3, 4, 5


def fake(chat: ChatHarness, user: Member) -> str:
    return f"user{user.id}@{fake_email_domain(chat.runtime.settings.base_url)}"


async def seen_by(chat: ChatHarness, viewer: Member, target: Member) -> dict[str, Any]:
    """The target's User record as GET /users, GET /users/{id} and /register give it to viewer."""
    members = (await api_ok(chat, "GET", "/users", viewer))["members"]
    listed = next(m for m in members if m["user_id"] == target.id)
    one = (await api_ok(chat, "GET", f"/users/{target.id}", viewer))["user"]
    state = await api_ok(chat, "POST", "/register", viewer, fetch_event_types=["realm_user"])
    registered = next(u for u in state["realm_users"] if u["user_id"] == target.id)
    assert listed == one
    assert (listed["email"], listed["delivery_email"]) == (
        registered["email"],
        registered["delivery_email"],
    )
    return listed


async def set_visibility(chat: ChatHarness, user: Member, value: int) -> None:
    await api_ok(chat, "PATCH", "/settings", user, email_address_visibility=value)


async def test_restricted_address_is_replaced_and_hidden(chat: ChatHarness) -> None:
    hamlet, cordelia, iago = chat.hamlet, chat.cordelia, chat.iago
    await chat.make_stream("lobby", [hamlet, cordelia])
    assert (await seen_by(chat, cordelia, hamlet))["delivery_email"] == hamlet.email
    cordelia_q = await listen(chat, cordelia, ["realm_user"])
    iago_q = await listen(chat, iago, ["realm_user"])
    await set_visibility(chat, hamlet, ADMINS)

    record = await seen_by(chat, cordelia, hamlet)
    assert (record["email"], record["delivery_email"]) == (fake(chat, hamlet), None)
    record = await seen_by(chat, iago, hamlet)
    assert (record["email"], record["delivery_email"]) == (fake(chat, hamlet), hamlet.email)
    me = await api_ok(chat, "GET", "/users/me", hamlet)
    assert (me["email"], me["delivery_email"]) == (fake(chat, hamlet), hamlet.email)
    state = await api_ok(chat, "POST", "/register", hamlet, fetch_event_types=["realm_user"])
    assert (state["email"], state["delivery_email"]) == (fake(chat, hamlet), hamlet.email)

    # Everyone hears of the new API address; only those who lost access hear of a null.
    seen = await cordelia_q.events()
    people = [e["person"] for e in seen]
    assert people == [
        {"user_id": hamlet.id, "new_email": fake(chat, hamlet)},
        {"user_id": hamlet.id, "delivery_email": None},
    ]
    people = [e["person"] for e in await iago_q.events()]
    assert people == [{"user_id": hamlet.id, "new_email": fake(chat, hamlet)}]

    # Messages carry the stand-in address; the real one still signs in.
    await chat.send_stream(hamlet, "lobby", "t", "hello")
    messages = (
        await api_ok(chat, "GET", "/messages", cordelia, anchor="newest", num_before=1, num_after=0)
    )["messages"]
    assert messages[0]["sender_email"] == fake(chat, hamlet)
    assert hamlet.email not in str(messages)

    # Back to everyone: the real address returns, and those who regain access hear it.
    await set_visibility(chat, hamlet, EVERYONE)
    record = await seen_by(chat, cordelia, hamlet)
    assert (record["email"], record["delivery_email"]) == (hamlet.email, hamlet.email)
    people = [e["person"] for e in await cordelia_q.events(seen[-1]["id"])]
    assert people == [
        {"user_id": hamlet.id, "new_email": hamlet.email},
        {"user_id": hamlet.id, "delivery_email": hamlet.email},
    ]


@pytest.mark.parametrize(
    ("visibility", "allowed"),
    [
        (MEMBERS, {"iago", "shiva", "cordelia", "desdemona"}),
        (ADMINS, {"iago", "desdemona"}),
        (MODERATORS, {"iago", "shiva", "desdemona"}),
        (NOBODY, set()),
    ],
)
async def test_who_sees_the_real_address(
    chat: ChatHarness, visibility: int, allowed: set[str]
) -> None:
    await set_visibility(chat, chat.hamlet, visibility)
    for name in ("iago", "shiva", "cordelia", "polonius", "desdemona"):
        record = await seen_by(chat, chat.users[name], chat.hamlet)
        expected = chat.hamlet.email if name in allowed else None
        assert record["delivery_email"] == expected, name
        assert record["email"] == fake(chat, chat.hamlet)
    # The user always sees their own.
    assert (await seen_by(chat, chat.hamlet, chat.hamlet))["delivery_email"] == chat.hamlet.email


async def test_new_users_take_the_organization_default(chat: ChatHarness) -> None:
    await api_ok(
        chat,
        "PATCH",
        "/realm/user_settings_defaults",
        chat.desdemona,
        email_address_visibility=ADMINS,
    )
    cordelia_q = await listen(chat, chat.cordelia, ["realm_user"])
    iago_q = await listen(chat, chat.iago, ["realm_user"])
    body = await api_ok(
        chat,
        "POST",
        "/users",
        chat.desdemona,
        email="newbie@zulip.test",
        password="a-fine-password",
        full_name="New Bie",
    )
    stand_in = f"user{body['user_id']}@{fake_email_domain(chat.runtime.settings.base_url)}"
    (added,) = await cordelia_q.events()
    assert (added["person"]["email"], added["person"]["delivery_email"]) == (stand_in, None)
    (added,) = await iago_q.events()
    assert added["person"]["delivery_email"] == "newbie@zulip.test"
    # A bot's address stays public whatever the default.
    bot = await chat.make_user("helper-bot", bot_owner=chat.hamlet)
    record = await seen_by(chat, chat.cordelia, bot)
    assert (record["email"], record["delivery_email"]) == (bot.email, bot.email)


async def test_bad_visibility_values(chat: ChatHarness) -> None:
    for value in (0, 6, "everyone"):
        response = await chat.patch("/settings", chat.hamlet, email_address_visibility=value)
        assert response.json()["result"] == "error" and response.status_code == 400
    assert_json_error(
        await chat.patch("/settings", chat.hamlet, email_address_visibility=9),
        "Invalid email_address_visibility",
    )
    assert (await seen_by(chat, chat.cordelia, chat.hamlet))["email"] == chat.hamlet.email


async def test_the_real_address_still_signs_in_and_stays_taken(chat: ChatHarness) -> None:
    ophelia = await chat.make_user("ophelia", password="ophelia-secret-pw")
    await set_visibility(chat, ophelia, NOBODY)
    # Signing in takes the real address, as Zulip's email backend does; the answer names the
    # API address.
    body = assert_json_success(
        await chat.post(
            "/fetch_api_key", None, username=ophelia.email, password="ophelia-secret-pw"
        )
    )
    assert (body["user_id"], body["email"]) == (ophelia.id, fake(chat, ophelia))
    # Nobody else can take the hidden address, by creation or by invitation.
    assert_json_error(
        await chat.post(
            "/users", chat.desdemona, email=ophelia.email, password="another-pw-1", full_name="Dup"
        ),
        f"Email '{ophelia.email}' already in use",
    )
    stream_id = await chat.make_stream("lobby", [chat.desdemona])
    response = await chat.post(
        "/invites", chat.desdemona, invitee_emails=ophelia.email, stream_ids=f"[{stream_id}]"
    )
    assert_json_error(response, "We weren't able to invite anyone.", code="INVITATION_FAILED")
