"""GET /users and GET /users/me/subscriptions?include_subscribers=true, built in bulk.

Both listings are built from tuples with one query each (see bench/chat_admin.py); these tests
hold them to the per-record functions the other endpoints use.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import ROLE_MEMBER
from tests.chat.conftest import ChatHarness, api_ok

pytestmark = pytest.mark.anyio


async def test_user_listing_matches_single_user_records(chat: ChatHarness) -> None:
    bot = await chat.make_user("bot", ROLE_MEMBER, "Helper Bot", bot_owner=chat.hamlet)
    await api_ok(chat, "DELETE", f"/users/{chat.cordelia.id}", chat.iago)
    await chat.runtime.db.write(
        lambda conn: conn.execute(
            sa.update(schema.user)
            .where(schema.user.c.id == chat.shiva.id)
            .values(avatar_source="U", avatar_version=3, timezone="Europe/Paris")
        )
    )
    for options in (
        {},
        {"client_gravatar": False},
        {"include_custom_profile_fields": True},
    ):
        listed = (await api_ok(chat, "GET", "/users", chat.hamlet, **options))["members"]
        assert [m["user_id"] for m in listed] == sorted(m["user_id"] for m in listed)
        assert len(listed) == len(chat.users)
        for member in listed:
            one = await api_ok(chat, "GET", f"/users/{member['user_id']}", chat.hamlet, **options)
            assert member == one["user"]
            assert list(member) == list(one["user"])  # the same keys in the same order
    by_id = {m["user_id"]: m for m in listed}
    assert by_id[bot.id]["bot_owner_id"] == chat.hamlet.id and by_id[bot.id]["is_bot"] is True
    assert "profile_data" not in by_id[bot.id] and by_id[chat.hamlet.id]["profile_data"] == {}
    assert by_id[chat.cordelia.id]["is_active"] is False
    assert by_id[chat.shiva.id]["avatar_url"].endswith(f"/{chat.shiva.id}.png?version=3")
    assert by_id[chat.iago.id]["avatar_url"] is None  # client_gravatar defaults to true


async def test_subscriber_lists(chat: ChatHarness) -> None:
    everyone = [chat.desdemona, chat.iago, chat.shiva, chat.hamlet, chat.cordelia]
    verona = await chat.make_stream("Verona", list(reversed(everyone)))
    denmark = await chat.make_stream("Denmark", [chat.hamlet, chat.polonius])
    await chat.make_stream("secret", [chat.iago], invite_only=True)
    # Cordelia leaves Verona; Shiva is deactivated: neither is listed.
    await api_ok(chat, "DELETE", "/users/me/subscriptions", chat.cordelia, subscriptions=["Verona"])
    await api_ok(chat, "DELETE", f"/users/{chat.shiva.id}", chat.iago)
    body = await api_ok(
        chat, "GET", "/users/me/subscriptions", chat.hamlet, include_subscribers=True
    )
    subs = {s["name"]: s["subscribers"] for s in body["subscriptions"]}
    assert subs == {
        "Denmark": sorted([chat.hamlet.id, chat.polonius.id]),
        "Verona": sorted([chat.desdemona.id, chat.iago.id, chat.hamlet.id]),
    }
    for name, stream_id in (("Verona", verona), ("Denmark", denmark)):
        members = await api_ok(chat, "GET", f"/streams/{stream_id}/members", chat.hamlet)
        assert members["subscribers"] == subs[name]
    without = await api_ok(chat, "GET", "/users/me/subscriptions", chat.hamlet)
    assert all("subscribers" not in s for s in without["subscriptions"])
    # A user with no subscriptions gets an empty list either way.
    lonely = await chat.make_user("lonely")
    body = await api_ok(chat, "GET", "/users/me/subscriptions", lonely, include_subscribers=True)
    assert body["subscriptions"] == []
