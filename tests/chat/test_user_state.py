"""User status, alert words (and the has_alert_word flag), muted users."""

from __future__ import annotations

import pytest

from atrium.chat import schema
from atrium.chat.queries.alert_words import content_alerts
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error, listen

pytestmark = pytest.mark.anyio


async def register(chat: ChatHarness, user: object, *types: str) -> dict[str, object]:
    return await api_ok(chat, "POST", "/register", user, fetch_event_types=list(types))


async def test_status_text_emoji_and_away(chat: ChatHarness) -> None:
    q = await listen(chat, chat.cordelia, ["user_status"])
    await api_ok(
        chat,
        "POST",
        "/users/me/status",
        chat.hamlet,
        status_text=" In a meeting ",
        emoji_name="car",
    )
    state = await register(chat, chat.cordelia, "user_status")
    assert state["user_status"] == {
        str(chat.hamlet.id): {
            "status_text": "In a meeting",
            "emoji_name": "car",
            "emoji_code": "1f697",
            "reaction_type": "unicode_emoji",
        }
    }
    await api_ok(chat, "POST", "/users/me/status", chat.hamlet, away=True)
    events = await q.events()
    assert events[0] == {
        "type": "user_status",
        "user_id": chat.hamlet.id,
        "status_text": "In a meeting",
        "emoji_name": "car",
        "emoji_code": "1f697",
        "reaction_type": "unicode_emoji",
        "id": events[0]["id"],
    }
    assert events[1]["away"] is True
    state = await register(chat, chat.hamlet, "user_status", "user_settings")
    assert state["user_status"][str(chat.hamlet.id)]["away"] is True  # type: ignore[index]
    assert state["user_settings"]["presence_enabled"] is False  # type: ignore[index]
    # Clearing: empty text and empty emoji.
    await api_ok(
        chat, "POST", "/users/me/status", chat.hamlet, status_text="", emoji_name="", away=False
    )
    assert (await register(chat, chat.cordelia, "user_status"))["user_status"] == {}


async def test_status_errors(chat: ChatHarness) -> None:
    cases = [
        ({}, "Client did not pass any new values."),
        ({"status_text": "x" * 61}, "status_text is too long (limit: 60 characters)"),
        ({"emoji_code": "1f697"}, "Client did not pass any new values."),
        (
            {"status_text": "x", "emoji_code": "1f697"},
            "Client must pass emoji_name if they pass either emoji_code or reaction_type.",
        ),
        ({"emoji_name": "no_such"}, "Emoji 'no_such' does not exist"),
        ({"emoji_name": "car", "emoji_code": "1f604"}, "Invalid emoji name."),
    ]
    for params, msg in cases:
        assert_json_error(await chat.post("/users/me/status", chat.hamlet, **params), msg)
    assert await chat.count(schema.user_status) == 0


async def test_alert_words(chat: ChatHarness) -> None:
    q = await listen(chat, chat.hamlet, ["alert_words"])
    body = await api_ok(
        chat,
        "POST",
        "/users/me/alert_words",
        chat.hamlet,
        alert_words=["Coffee", " tea ", "", "coffee"],
    )
    assert body["alert_words"] == ["Coffee", "tea"]
    assert (await api_ok(chat, "GET", "/users/me/alert_words", chat.hamlet))["alert_words"] == [
        "Coffee",
        "tea",
    ]
    assert (await register(chat, chat.hamlet, "alert_words"))["alert_words"] == ["Coffee", "tea"]
    [event] = await q.events()
    assert event["alert_words"] == ["Coffee", "tea"]
    await chat.make_stream("lobby", [chat.hamlet, chat.cordelia])
    hit = await chat.send_stream(chat.cordelia, "lobby", "t", "Anyone for COFFEE?")
    miss = await chat.send_stream(chat.cordelia, "lobby", "t", "coffeemaker broken, steady")
    flags = {
        m["id"]: m["flags"]
        for m in (
            await api_ok(
                chat, "GET", "/messages", chat.hamlet, anchor="newest", num_before=5, num_after=0
            )
        )["messages"]
    }
    assert "has_alert_word" in flags[hit] and "has_alert_word" not in flags[miss]
    body = await api_ok(
        chat, "DELETE", "/users/me/alert_words", chat.hamlet, alert_words=["COFFEE", "nope"]
    )
    assert body["alert_words"] == ["tea"]
    assert_json_error(
        await chat.post("/users/me/alert_words", chat.hamlet, alert_words=["x" * 101]),
        "alert_words[0] is too long (limit: 100 characters)",
    )
    assert_json_error(
        await chat.post("/users/me/alert_words", chat.hamlet),
        "Missing 'alert_words' argument",
        code="REQUEST_VARIABLE_MISSING",
    )


@pytest.mark.parametrize(
    ("content", "alerts"),
    [
        ("coffee", True),
        ("COFFEE time", True),
        ("(coffee)", True),
        ("*coffee*", True),
        ("`coffee`", True),
        ("> coffee", True),
        ("more coffee?", True),
        ("coffee!", True),
        ("line one\ncoffee\nline three", True),
        ("decaf coffee, please", True),
        ("my coffeemaker", False),
        ("decoffee", False),
        ("anti-coffee", False),
        ("coffee-ish", False),
        ("/coffee/", False),
        ('"coffee"', False),  # Zulip's quirk: a double quote never ends a match
        ("iced tea", True),  # the phrase, not its words
        ("iced  tea", False),
    ],
)
def test_alert_word_boundaries(content: str, alerts: bool) -> None:
    assert content_alerts(["Coffee", "ICED TEA"], content) is alerts


async def test_alert_word_flag_follows_edits(chat: ChatHarness) -> None:
    await chat.make_stream("lobby", [chat.hamlet, chat.cordelia, chat.iago])
    await api_ok(chat, "POST", "/users/me/alert_words", chat.hamlet, alert_words=["deploy"])
    await api_ok(chat, "POST", "/users/me/alert_words", chat.cordelia, alert_words=["deploy"])
    mid = await chat.send_stream(chat.cordelia, "lobby", "t", "nothing yet")

    async def flagged(user: object) -> bool:
        body = await api_ok(chat, "GET", "/messages", user, anchor=mid, num_before=0, num_after=0)
        return "has_alert_word" in body["messages"][0]["flags"]

    assert not await flagged(chat.hamlet)
    q = await listen(chat, chat.hamlet, ["update_message"])
    await api_ok(chat, "PATCH", f"/messages/{mid}", chat.cordelia, content="Deploy at noon")
    # The sender's own word does not alert her; the other reader gets the flag and an event.
    assert await flagged(chat.hamlet) and not await flagged(chat.cordelia)
    assert not await flagged(chat.iago)
    (event,) = await q.events()
    assert "has_alert_word" in event["flags"]
    await api_ok(chat, "PATCH", f"/messages/{mid}", chat.cordelia, content="postponed")
    assert not await flagged(chat.hamlet)
    # The `is:alerted` narrow follows the flag.
    await api_ok(chat, "PATCH", f"/messages/{mid}", chat.cordelia, content="deploy again")
    alerted = await api_ok(
        chat,
        "GET",
        "/messages",
        chat.hamlet,
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow='[{"operator": "is", "operand": "alerted"}]',
    )
    assert [m["id"] for m in alerted["messages"]] == [mid]


async def test_muted_users(chat: ChatHarness) -> None:
    await chat.make_stream("lobby", [chat.hamlet, chat.cordelia])
    before = await chat.send_stream(chat.cordelia, "lobby", "t", "unread before")
    q = await listen(chat, chat.hamlet, ["muted_users", "update_message_flags"])
    await api_ok(chat, "POST", f"/users/me/muted_users/{chat.cordelia.id}", chat.hamlet)
    events = await q.events()
    assert events[0]["type"] == "muted_users"
    assert [m["id"] for m in events[0]["muted_users"]] == [chat.cordelia.id]
    assert events[1]["type"] == "update_message_flags" and events[1]["messages"] == [before]
    after = await chat.send_stream(chat.cordelia, "lobby", "t", "arrives read")
    fetched = await api_ok(chat, "GET", f"/messages/{after}", chat.hamlet)
    assert "read" in fetched["message"]["flags"]
    state = await register(chat, chat.hamlet, "muted_users")
    assert [m["id"] for m in state["muted_users"]] == [chat.cordelia.id]  # type: ignore[attr-defined]
    assert_json_error(
        await chat.post(f"/users/me/muted_users/{chat.cordelia.id}", chat.hamlet),
        "User already muted",
    )
    assert_json_error(
        await chat.post(f"/users/me/muted_users/{chat.hamlet.id}", chat.hamlet), "Cannot mute self"
    )
    assert_json_error(await chat.post("/users/me/muted_users/999999", chat.hamlet), "No such user")
    await api_ok(chat, "DELETE", f"/users/me/muted_users/{chat.cordelia.id}", chat.hamlet)
    assert_json_error(
        await chat.delete(f"/users/me/muted_users/{chat.cordelia.id}", chat.hamlet),
        "User is not muted",
    )
    later = await chat.send_stream(chat.cordelia, "lobby", "t", "unread again")
    assert (
        "read"
        not in (await api_ok(chat, "GET", f"/messages/{later}", chat.hamlet))["message"]["flags"]
    )
