"""DELETE /users/me/subscriptions and POST /users/me/subscriptions/properties."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import ROLE_MEMBER
from tests.chat.conftest import (
    ChatHarness,
    Member,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio


async def subscribers(chat: ChatHarness, stream_id: int) -> list[int]:
    rows = await chat.runtime.db.read(
        lambda conn: conn.scalars(
            sa.select(schema.subscription.c.user_id)
            .where(
                schema.subscription.c.stream_id == stream_id,
                schema.subscription.c.active.is_(True),
            )
            .order_by(schema.subscription.c.user_id)
        )
    )
    return list(rows)


async def test_unsubscribe_self_and_again(chat: ChatHarness) -> None:
    sid = await chat.make_stream("sample-private", [chat.hamlet, chat.cordelia], invite_only=True)
    hamlet_q = await listen(chat, chat.hamlet, ["subscription"])
    cordelia_q = await listen(chat, chat.cordelia, ["subscription"])
    othello_q = await listen(chat, chat.shiva, ["subscription"])
    body = await api_ok(
        chat, "DELETE", "/users/me/subscriptions", chat.hamlet, subscriptions=["sample-private"]
    )
    assert body["removed"] == ["sample-private"] and body["not_removed"] == []
    assert await subscribers(chat, sid) == [chat.cordelia.id]
    [removed] = await hamlet_q.events()
    assert removed["op"] == "remove"
    assert removed["subscriptions"] == [{"name": "sample-private", "stream_id": sid}]
    [peer] = await cordelia_q.events()
    assert peer["op"] == "peer_remove"
    assert peer["stream_ids"] == [sid] and peer["user_ids"] == [chat.hamlet.id]
    # A private stream's subscriber changes are nobody else's business.
    assert await othello_q.events() == []
    body = await api_ok(
        chat, "DELETE", "/users/me/subscriptions", chat.hamlet, subscriptions=["sample-private"]
    )
    assert body["removed"] == [] and body["not_removed"] == ["sample-private"]


async def test_unknown_stream(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet])
    resp = await chat.delete(
        "/users/me/subscriptions", chat.hamlet, subscriptions=["Verona", "no-such"]
    )
    body = assert_json_error(resp, "Stream(s) (no-such) do not exist", code="STREAM_DOES_NOT_EXIST")
    assert body["stream"] == "no-such"
    assert await subscribers(chat, sid) == [chat.hamlet.id]
    resp = await chat.delete("/users/me/subscriptions", chat.hamlet)
    assert_json_error(resp, "Missing 'subscriptions' argument", code="REQUEST_VARIABLE_MISSING")


async def test_principals_by_id_and_email(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia, chat.shiva])
    body = await api_ok(
        chat,
        "DELETE",
        "/users/me/subscriptions",
        chat.desdemona,
        subscriptions=["Verona"],
        principals=[chat.cordelia.email],
    )
    assert body == {"result": "success", "msg": "", "removed": ["Verona"], "not_removed": []}
    await api_ok(
        chat,
        "DELETE",
        "/users/me/subscriptions",
        chat.iago,
        subscriptions=["Verona"],
        principals=[chat.shiva.id],
    )
    assert await subscribers(chat, sid) == [chat.hamlet.id]
    resp = await chat.delete(
        "/users/me/subscriptions", chat.iago, subscriptions=["Verona"], principals=[987654]
    )
    assert_json_error(resp, "No such user")
    resp = await chat.delete(
        "/users/me/subscriptions", chat.iago, subscriptions=["Verona"], principals=["x@y.z"]
    )
    assert_json_error(resp, "No such user")


async def make_bot(chat: ChatHarness, owner: Member) -> Member:
    return await chat.make_user("bot", ROLE_MEMBER, "Bot", bot_owner=owner)


async def test_bot_owner_may_remove_own_bot(chat: ChatHarness) -> None:
    bot = await make_bot(chat, chat.hamlet)
    sid = await chat.make_stream("Verona", [chat.hamlet, bot])
    body = await api_ok(
        chat,
        "DELETE",
        "/users/me/subscriptions",
        chat.hamlet,
        subscriptions=["Verona"],
        principals=[bot.id],
    )
    assert body["removed"] == ["Verona"]
    assert await subscribers(chat, sid) == [chat.hamlet.id]
    # Not someone else's bot.
    other = await chat.make_user("otherbot", ROLE_MEMBER, "Other bot", bot_owner=chat.cordelia)
    await chat.subscribe(other, "Verona")
    resp = await chat.delete(
        "/users/me/subscriptions", chat.hamlet, subscriptions=["Verona"], principals=[other.id]
    )
    assert_json_error(resp, "Insufficient permission")
    # Nor from a private stream the owner cannot access.
    await chat.make_stream("secret", [bot], invite_only=True)
    resp = await chat.delete(
        "/users/me/subscriptions", chat.hamlet, subscriptions=["secret"], principals=[bot.id]
    )
    assert_json_error(resp, "Insufficient permission")


async def test_can_remove_subscribers_group(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia, chat.shiva])
    # The default group is the administrators: a moderator may not.
    resp = await chat.delete(
        "/users/me/subscriptions", chat.shiva, subscriptions=["Verona"], principals=[chat.hamlet.id]
    )
    assert_json_error(resp, "Insufficient permission")
    moderators = await chat.runtime.db.read(
        lambda conn: conn.scalar(
            sa.select(schema.user_group.c.id).where(schema.user_group.c.name == "@role:moderators")
        )
    )
    await api_ok(
        chat, "PATCH", f"/streams/{sid}", chat.iago, can_remove_subscribers_group_id=moderators
    )
    await api_ok(
        chat,
        "DELETE",
        "/users/me/subscriptions",
        chat.shiva,
        subscriptions=["Verona"],
        principals=[chat.hamlet.id],
    )
    assert chat.hamlet.id not in await subscribers(chat, sid)
    # Group membership is not enough without access to the stream.
    await chat.make_stream("secret", [chat.cordelia], invite_only=True)
    secret_id = await chat.runtime.db.read(
        lambda conn: conn.scalar(
            sa.select(schema.stream.c.id).where(schema.stream.c.name == "secret")
        )
    )
    resp = await chat.delete(
        "/users/me/subscriptions",
        chat.shiva,
        subscriptions=["secret"],
        principals=[chat.cordelia.id],
    )
    assert_json_error(resp, "Insufficient permission")
    assert await subscribers(chat, secret_id) == [chat.cordelia.id]


PRINCIPAL_CELLS = ("polonius", "hamlet", "shiva", "iago", "desdemona", "bot_owner")


@pytest.mark.parametrize("who", PRINCIPAL_CELLS)
async def test_remove_others_permission_matrix(chat: ChatHarness, who: str) -> None:
    """Who may remove another user (Cordelia) from a public stream by default."""
    if who == "bot_owner":
        await make_bot(chat, chat.hamlet)
        actor = chat.hamlet
        target = chat.users["bot"]
    else:
        actor = chat.users[who]
        target = chat.cordelia
    sid = await chat.make_stream("Verona", [actor, target])
    resp = await chat.delete(
        "/users/me/subscriptions", actor, subscriptions=["Verona"], principals=[target.id]
    )
    if who in {"iago", "desdemona", "bot_owner"}:
        assert assert_json_success(resp)["removed"] == ["Verona"]
        assert target.id not in await subscribers(chat, sid)
    else:
        assert_json_error(resp, "Insufficient permission")
        assert target.id in await subscribers(chat, sid)
    # Everyone may remove themselves.
    body = assert_json_success(
        await chat.delete("/users/me/subscriptions", actor, subscriptions=["Verona"])
    )
    assert body["removed"] == ["Verona"]


async def test_subscription_properties(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet])
    q = await listen(chat, chat.hamlet, ["subscription"])
    await api_ok(
        chat,
        "POST",
        "/users/me/subscriptions/properties",
        chat.hamlet,
        subscription_data=[
            {"stream_id": sid, "property": "color", "value": "#abcdef"},
            {"stream_id": sid, "property": "pin_to_top", "value": True},
            {"stream_id": sid, "property": "is_muted", "value": True},
            {"stream_id": sid, "property": "desktop_notifications", "value": False},
            {"stream_id": sid, "property": "wildcard_mentions_notify", "value": True},
        ],
    )
    [sub] = assert_json_success(await chat.get("/users/me/subscriptions", chat.hamlet))[
        "subscriptions"
    ]
    assert sub["color"] == "#abcdef" and sub["pin_to_top"] is True
    assert sub["is_muted"] is True and sub["in_home_view"] is False
    assert sub["desktop_notifications"] is False and sub["wildcard_mentions_notify"] is True
    events = await q.events()
    assert [(e["property"], e["value"]) for e in events] == [
        ("color", "#abcdef"),
        ("pin_to_top", True),
        ("in_home_view", False),
        ("desktop_notifications", False),
        ("wildcard_mentions_notify", True),
    ]
    # The PATCH spelling works too, and in_home_view is the inverse of is_muted.
    assert_json_success(
        await chat.patch(
            "/users/me/subscriptions/properties",
            chat.hamlet,
            subscription_data=[{"stream_id": sid, "property": "in_home_view", "value": True}],
        )
    )
    [sub] = assert_json_success(await chat.get("/users/me/subscriptions", chat.hamlet))[
        "subscriptions"
    ]
    assert sub["is_muted"] is False


async def test_subscription_property_errors(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet])
    secret = await chat.make_stream("secret", [chat.cordelia], invite_only=True)

    async def err(data: list[dict[str, object]], msg: str) -> None:
        resp = await chat.post(
            "/users/me/subscriptions/properties", chat.hamlet, subscription_data=data
        )
        assert_json_error(resp, msg)

    await err(
        [{"stream_id": sid, "property": "bogus", "value": 1}],
        "Unknown subscription property: bogus",
    )
    await err(
        [{"stream_id": sid, "property": "color", "value": "red"}],
        "color is not a valid hex color code",
    )
    await err(
        [{"stream_id": sid, "property": "pin_to_top", "value": "yes"}],
        "pin_to_top is not a boolean",
    )
    await err([{"stream_id": secret, "property": "pin_to_top", "value": True}], "Invalid stream ID")
    other = await chat.make_stream("Denmark", [chat.cordelia])
    await err(
        [{"stream_id": other, "property": "pin_to_top", "value": True}],
        f"Not subscribed to stream id {other}",
    )
    await err(
        [{"stream_id": sid, "property": "pin_to_top"}], "subscription_data[0] is missing 'value'"
    )
    # One bad change refuses the whole request.
    await err(
        [
            {"stream_id": sid, "property": "pin_to_top", "value": True},
            {"stream_id": sid, "property": "color", "value": "red"},
        ],
        "color is not a valid hex color code",
    )
    [sub] = assert_json_success(await chat.get("/users/me/subscriptions", chat.hamlet))[
        "subscriptions"
    ]
    assert sub["pin_to_top"] is False
