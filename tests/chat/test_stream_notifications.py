"""The Notification Bot's "stream events" messages on PATCH /streams/{id} (Zulip 7's texts)."""

from __future__ import annotations

from typing import Any

import pytest

from atrium.chat.actions.stream_notifications import (
    permission_policy_name,
    retention_text,
)
from atrium.chat.models import User
from tests.chat.conftest import ChatHarness, Member, api_ok, assert_json_error, listen

pytestmark = pytest.mark.anyio


async def stream_events(chat: ChatHarness, reader: Member, stream: str) -> list[dict[str, Any]]:
    body = await api_ok(
        chat,
        "GET",
        "/messages",
        reader,
        anchor="newest",
        num_before=50,
        num_after=0,
        apply_markdown=False,
        narrow=[
            {"operator": "stream", "operand": stream},
            {"operator": "topic", "operand": "stream events"},
        ],
    )
    return list(body["messages"])


def mention(user: Member) -> str:
    return f"@_**{user.full_name}|{user.id}**"


async def test_each_change_is_posted_to_stream_events(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet, chat.iago, chat.desdemona])
    hamlet_q = await listen(chat, chat.hamlet, ["message"])
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, description="About **Verona**")
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, new_name="Vienna")
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, stream_post_policy=2)
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, is_private=True)
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.desdemona, message_retention_days=30)
    messages = await stream_events(chat, chat.hamlet, "Vienna")
    assert {m["sender_full_name"] for m in messages} == {"Notification Bot"}
    assert {m["sender_email"] for m in messages} == {"notification-bot@zulip.com"}
    iago = mention(chat.iago)
    assert [m["content"] for m in messages] == [
        f"{iago} changed the description for this stream.\n\n"
        "* **Old description:**\n```` quote\n*No description.*\n````\n"
        "* **New description:**\n```` quote\nAbout **Verona**\n````",
        f"{iago} renamed stream **Verona** to **Vienna**.",
        f"{iago} changed the [posting permissions](/help/stream-sending-policy) for this "
        "stream:\n\n* **Old permissions**: All stream members can post.\n"
        "* **New permissions**: Only organization administrators can post.\n",
        f"{iago} changed the [access permissions](/help/stream-permissions) for this stream "
        "from **Public** to **Private, protected history**.",
        f"{mention(chat.desdemona)} has changed the [message retention period]"
        "(/help/message-retention-policy) for this stream:\n"
        "* **Old retention period**: Forever\n* **New retention period**: 30 days\n\n"
        "Messages in this stream will now be automatically deleted 30 days after they are sent.",
    ]
    # Subscribers receive them as messages, unread (the acting user's too).
    events = await hamlet_q.events()
    assert [e["message"]["id"] for e in events] == [m["id"] for m in messages]
    assert all("read" not in e["flags"] for e in events)
    iago_view = await stream_events(chat, chat.iago, "Vienna")
    assert all("read" not in m["flags"] for m in iago_view)
    # The rendered silent mention names the acting user.
    rendered = await api_ok(chat, "GET", f"/messages/{messages[1]['id']}", chat.hamlet)
    assert f'data-user-id="{chat.iago.id}"' in rendered["message"]["content"]


async def test_unchanged_or_refused_settings_post_nothing(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.hamlet])
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, description="")
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, is_private=False)
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, stream_post_policy=1)
    resp = await chat.patch(f"/streams/{sid}", chat.iago, description="x", new_name="Verona")
    assert_json_error(resp, "Stream already has that name!")
    assert await stream_events(chat, chat.hamlet, "Verona") == []


async def test_description_removed_and_history_shared(chat: ChatHarness) -> None:
    sid = await chat.make_stream("secret", [chat.hamlet, chat.iago], invite_only=True)
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, description="hush")
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, description="")
    await api_ok(chat, "PATCH", f"/streams/{sid}", chat.iago, history_public_to_subscribers=True)
    contents = [m["content"] for m in await stream_events(chat, chat.hamlet, "secret")]
    assert contents[1].endswith(
        "* **Old description:**\n```` quote\nhush\n````\n"
        "* **New description:**\n```` quote\n*No description.*\n````"
    )
    assert contents[2].endswith(
        "from **Private, protected history** to **Private, shared history**."
    )
    # Not a subscriber of the private stream: Cordelia sees none of it.
    resp = await chat.get(
        "/messages",
        chat.cordelia,
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow='[{"operator": "stream", "operand": "secret"}]',
    )
    assert resp.status_code == 400 or resp.json()["messages"] == []


def test_policy_names_and_retention_texts() -> None:
    assert permission_policy_name(False, True, True) == "Web-public"
    assert permission_policy_name(False, True, False) == "Public"
    assert permission_policy_name(False, False, False) == "Public, protected history"
    assert permission_policy_name(True, True, False) == "Private, shared history"
    assert permission_policy_name(True, False, False) == "Private, protected history"
    actor = User(7, 1, "iago@zulip.test", "Iago", 200, True, False, None, 0.0)
    to_forever = retention_text(actor, 30, -1, None)
    assert "* **Old retention period**: 30 days\n* **New retention period**: Forever" in to_forever
    assert to_forever.endswith("Messages in this stream will now be retained forever.")
    # The stream's "realm default" reads the realm's value.
    from_default = retention_text(actor, None, 10, 90)
    assert "* **Old retention period**: 90 days\n* **New retention period**: 10 days" in (
        from_default
    )
    assert retention_text(actor, 10, None, None).endswith("retained forever.")
