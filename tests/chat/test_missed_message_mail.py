"""Missed-message mails: what is still unread after the batching period is mailed, one mail per
conversation, as the recipient's settings say; the mail's unsubscribe link works signed out."""

from __future__ import annotations

import re
import time
from email.message import EmailMessage
from typing import Any

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.missed_messages import HOLD_SECONDS, mail_due_missed_messages
from atrium.chat.email_notifications import MissedMessageMailer
from atrium.chat.events.bus import QUEUE_TIMEOUT_SECONDS, MemoryEventQueues, QueueOptions
from tests.chat.conftest import ChatHarness, Member, api_ok, assert_json_success
from tests.mail_server import html_part, outbox_mails, text_part

pytestmark = pytest.mark.anyio

LATER = 121.0  # just past Zulip's default batching period


async def _mail_due(chat: ChatHarness, after: float = LATER) -> int:
    rt = chat.runtime
    return await rt.db.write(mail_due_missed_messages, rt.composer, rt.secret, time.time() + after)


async def _mails(chat: ChatHarness) -> list[EmailMessage]:
    return await outbox_mails(chat.runtime.db, schema.mail_outbox)


async def test_unread_direct_messages_are_mailed_together_after_the_period(
    chat: ChatHarness,
) -> None:
    await chat.send_dm(chat.cordelia, [chat.hamlet], "Where is the king?")
    await chat.send_dm(chat.cordelia, [chat.hamlet], "Answer me")
    assert await _mail_due(chat, after=0) == 0  # not yet
    assert await _mail_due(chat) == 1
    [mail] = await _mails(chat)
    assert mail["To"] == "King Hamlet <hamlet@zulip.test>"
    assert mail["Subject"] == "DMs with Cordelia, Lear's daughter"
    body = text_part(mail)
    assert "Where is the king?" in body and "Answer me" in body
    assert f"/#narrow/dm/{chat.cordelia.id}" in body
    assert "Answer me" in html_part(mail)
    assert mail["List-Unsubscribe"].startswith("<http")
    assert await _mail_due(chat, after=1000) == 0  # mailed once


async def test_what_was_read_in_time_is_not_mailed(chat: ChatHarness) -> None:
    message_id = await chat.send_dm(chat.cordelia, [chat.hamlet], "Quick question")
    await api_ok(
        chat, "POST", "/messages/flags", chat.hamlet, messages=[message_id], op="add", flag="read"
    )
    assert await _mail_due(chat) == 0
    assert await _mails(chat) == []


async def test_mentions_alert_words_and_stream_notifications(chat: ChatHarness) -> None:
    stream_id = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia, chat.iago])
    await chat.send_stream(chat.cordelia, "Verona", "plans", "nothing for anyone")
    assert await _mail_due(chat) == 0
    await chat.send_stream(chat.cordelia, "Verona", "plans", "@**King Hamlet** look")
    await api_ok(chat, "POST", "/users/me/alert_words", chat.iago, alert_words=["poison"])
    await chat.send_stream(chat.cordelia, "Verona", "plot", "the poison is ready")
    assert await _mail_due(chat) == 2
    mails = {m["To"].addresses[0].addr_spec: m for m in await _mails(chat)}
    to_hamlet, to_iago = mails["hamlet@zulip.test"], mails["iago@zulip.test"]
    assert to_hamlet["Subject"] == "#Verona > plans" and "look" in text_part(to_hamlet)
    assert "nothing for anyone" not in text_part(to_hamlet)  # not a mention: not mailed
    assert re.search(rf"/#narrow/stream/{stream_id}-Verona/topic/plans", text_part(to_hamlet))
    assert to_iago["Subject"] == "#Verona > plot"
    await api_ok(
        chat,
        "POST",
        "/users/me/subscriptions/properties",
        chat.iago,
        subscription_data=[
            {"stream_id": stream_id, "property": "email_notifications", "value": True}
        ],
    )
    await chat.send_stream(chat.cordelia, "Verona", "news", "a stream message")
    assert await _mail_due(chat) == 1
    assert (await _mails(chat))[-1]["Subject"] == "#Verona > news"


async def test_the_recipients_settings_decide(chat: ChatHarness) -> None:
    await api_ok(
        chat,
        "PATCH",
        "/settings",
        chat.hamlet,
        message_content_in_email_notifications=False,
        realm_name_in_email_notifications_policy=2,
    )
    await chat.send_dm(chat.cordelia, [chat.hamlet], "secret plans")
    await api_ok(chat, "PATCH", "/settings", chat.iago, enable_offline_email_notifications=False)
    await chat.send_dm(chat.cordelia, [chat.iago], "for iago")
    assert await _mail_due(chat) == 1
    [mail] = await _mails(chat)
    assert mail["To"] == "King Hamlet <hamlet@zulip.test>"
    assert mail["Subject"] == "[Zulip Test] New messages"
    assert "secret plans" not in text_part(mail) and "sent a message" in text_part(mail)


async def test_the_unsubscribe_link_works_signed_out(chat: ChatHarness) -> None:
    await chat.send_dm(chat.cordelia, [chat.hamlet], "hello")
    await _mail_due(chat)
    [mail] = await _mails(chat)
    link = mail["List-Unsubscribe"].strip("<>")
    path = re.sub(r"^https?://[^/]+", "", link)
    kind_token = path.removeprefix("/accounts/unsubscribe/missed_messages/")
    assert (await chat.client.get(f"/accounts/unsubscribe/digest/{kind_token}")).status_code == 404
    assert (await chat.client.get("/accounts/unsubscribe/missed_messages/x.y")).status_code == 404
    page = await chat.client.get(path)
    assert page.status_code == 200 and "Unsubscribed" in page.text
    state = await api_ok(
        chat, "POST", "/register", chat.hamlet, fetch_event_types=["user_settings"]
    )
    assert state["user_settings"]["enable_offline_email_notifications"] is False
    await chat.send_dm(chat.cordelia, [chat.hamlet], "after unsubscribing")
    assert await _mail_due(chat) == 0


async def test_wildcard_mentions_follow_wildcard_mentions_notify(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia, chat.iago])
    await api_ok(chat, "PATCH", "/settings", chat.iago, wildcard_mentions_notify=False)
    await chat.send_stream(chat.cordelia, "Verona", "all hands", "@**all** meeting now")
    assert await _mail_due(chat) == 1
    [mail] = await _mails(chat)
    assert mail["To"] == "King Hamlet <hamlet@zulip.test>"
    assert mail["Subject"] == "#Verona > all hands"


# --- On the chat or away (Zulip 7: presence and event queues) ------------------------------------


async def _on_chat(chat: ChatHarness, user: Member, event_types: list[str] | None = None) -> str:
    """Open a client for `user`: an event queue, and an active presence heartbeat."""
    params: dict[str, Any] = {} if event_types is None else {"event_types": event_types}
    state = await api_ok(chat, "POST", "/register", user, **params)
    await _heartbeat(chat, user)
    return str(state["queue_id"])


async def _heartbeat(chat: ChatHarness, user: Member) -> None:
    assert_json_success(await chat.post("/users/me/presence", user, status="active"))


async def _set_presence(chat: ChatHarness, user: Member, last_active: float | None) -> None:
    P = schema.user_presence.c
    await chat.runtime.db.write(
        lambda conn: conn.execute(
            sa.update(schema.user_presence)
            .where(P.user_id == user.id)
            .values(last_active_time=last_active, last_connected_time=last_active or 0.0)
        )
    )


async def _mailer_pass(chat: ChatHarness, after: float) -> int:
    """One pass of the background mailer, its clock `after` seconds ahead."""
    at = time.time() + after
    return await MissedMessageMailer(chat.runtime, clock=lambda: at).mail_due()


async def _pending(chat: ChatHarness) -> int:
    return await chat.count(schema.missed_message_email)


async def test_a_recipient_on_the_chat_is_not_mailed_when_the_period_ends(
    chat: ChatHarness,
) -> None:
    await _on_chat(chat, chat.hamlet)
    await chat.send_dm(chat.cordelia, [chat.hamlet], "you are here")
    assert await _mailer_pass(chat, LATER) == 0
    # Still on the chat once the hold is over too: the message reached them live.
    await _set_presence(chat, chat.hamlet, time.time() + LATER + HOLD_SECONDS)
    assert await _mailer_pass(chat, LATER + HOLD_SECONDS) == 0
    assert await _pending(chat) == 0
    assert await _mails(chat) == []


async def test_a_client_that_vanished_leads_to_a_mail_after_the_hold(chat: ChatHarness) -> None:
    await _on_chat(chat, chat.hamlet)
    await chat.send_dm(chat.cordelia, [chat.hamlet], "are you there?")
    assert await _mailer_pass(chat, LATER) == 0  # held: he looked present
    assert await _pending(chat) == 1
    # Ten minutes on, his presence has gone stale (the laptop was closed): mailed then.
    assert await _mailer_pass(chat, LATER + HOLD_SECONDS) == 1
    [mail] = await _mails(chat)
    assert mail["To"] == "King Hamlet <hamlet@zulip.test>"
    assert "are you there?" in text_part(mail)


async def test_presence_without_a_message_queue_is_away(chat: ChatHarness) -> None:
    # A client that takes no messages does not see them arrive (Zulip's accepts_messages).
    await _on_chat(chat, chat.hamlet, event_types=["presence"])
    await chat.send_dm(chat.cordelia, [chat.hamlet], "one")
    assert await _mailer_pass(chat, LATER) == 1


async def test_a_queue_without_active_presence_is_away(chat: ChatHarness) -> None:
    await api_ok(chat, "POST", "/register", chat.hamlet)
    await chat.send_dm(chat.cordelia, [chat.hamlet], "idle tab")
    assert await _mailer_pass(chat, LATER) == 1


async def test_a_deleted_queue_no_longer_counts(chat: ChatHarness) -> None:
    queue_id = await _on_chat(chat, chat.hamlet)
    await api_ok(chat, "DELETE", "/events", chat.hamlet, queue_id=queue_id)
    await chat.send_dm(chat.cordelia, [chat.hamlet], "after closing the tab")
    assert await _mailer_pass(chat, LATER) == 1


async def test_someone_elses_client_does_not_make_a_recipient_present(chat: ChatHarness) -> None:
    await _on_chat(chat, chat.iago)
    await _heartbeat(chat, chat.hamlet)
    await chat.send_dm(chat.cordelia, [chat.hamlet, chat.iago], "to both")
    assert await _mailer_pass(chat, LATER) == 1
    [mail] = await _mails(chat)
    assert mail["To"] == "King Hamlet <hamlet@zulip.test>"


async def test_coming_back_before_the_period_ends_cancels_the_mail(chat: ChatHarness) -> None:
    await chat.send_dm(chat.cordelia, [chat.hamlet], "while you were out")
    await _on_chat(chat, chat.hamlet)
    assert await _mailer_pass(chat, LATER) == 0
    assert await _pending(chat) == 0


async def test_with_presence_off_the_queue_alone_decides(chat: ChatHarness) -> None:
    R = schema.realm.c
    await chat.runtime.db.write(
        lambda conn: conn.execute(
            sa.update(schema.realm).where(R.id == chat.realm_id).values(presence_disabled=True)
        )
    )
    await api_ok(chat, "POST", "/register", chat.hamlet)
    await chat.send_dm(chat.cordelia, [chat.hamlet], "no presence here")
    await chat.send_dm(chat.hamlet, [chat.iago], "iago has no client")
    assert await _mailer_pass(chat, LATER) == 1
    [mail] = await _mails(chat)
    assert mail["To"].addresses[0].addr_spec == "iago@zulip.test"


# --- Wildcard mentions and the subscription's settings -------------------------------------------


async def _sub_property(
    chat: ChatHarness, user: Member, stream_id: int, prop: str, value: object
) -> None:
    await api_ok(
        chat,
        "POST",
        "/users/me/subscriptions/properties",
        user,
        subscription_data=[{"stream_id": stream_id, "property": prop, "value": value}],
    )


async def _recipients(chat: ChatHarness) -> set[str]:
    return {m["To"].addresses[0].addr_spec for m in await _mails(chat)}


async def test_the_subscription_overrides_the_wildcard_default(chat: ChatHarness) -> None:
    stream_id = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia, chat.iago])
    # Hamlet: on by default, off for this stream; Iago: off by default, on for this stream.
    await _sub_property(chat, chat.hamlet, stream_id, "wildcard_mentions_notify", False)
    await api_ok(chat, "PATCH", "/settings", chat.iago, wildcard_mentions_notify=False)
    await _sub_property(chat, chat.iago, stream_id, "wildcard_mentions_notify", True)
    await chat.send_stream(chat.cordelia, "Verona", "all hands", "@**everyone** gather")
    assert await _mail_due(chat) == 1
    assert await _recipients(chat) == {"iago@zulip.test"}


async def test_muted_streams_and_topics_get_no_wildcard_or_stream_mail(chat: ChatHarness) -> None:
    stream_id = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia, chat.iago])
    await _sub_property(chat, chat.hamlet, stream_id, "is_muted", True)
    await _sub_property(chat, chat.hamlet, stream_id, "email_notifications", True)
    await api_ok(
        chat,
        "POST",
        "/user_topics",
        chat.iago,
        stream_id=stream_id,
        topic="Noise",
        visibility_policy=1,
    )
    await chat.send_stream(chat.cordelia, "Verona", "noise", "@**all** look")
    assert await _mail_due(chat) == 0
    # A personal mention still reaches them in a muted stream or topic.
    await chat.send_stream(chat.cordelia, "Verona", "noise", "@**King Hamlet** @**Iago** you")
    assert await _mail_due(chat) == 2
    # An unmuted topic of a muted stream follows the settings again.
    await api_ok(
        chat,
        "POST",
        "/user_topics",
        chat.hamlet,
        stream_id=stream_id,
        topic="signal",
        visibility_policy=2,
    )
    await chat.send_stream(chat.cordelia, "Verona", "signal", "a stream message")
    assert await _mail_due(chat) == 1
    assert (await _mails(chat))[-1]["To"].addresses[0].addr_spec == "hamlet@zulip.test"


async def test_a_mention_with_offline_mail_off_falls_back_to_the_stream_setting(
    chat: ChatHarness,
) -> None:
    stream_id = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    await api_ok(chat, "PATCH", "/settings", chat.hamlet, enable_offline_email_notifications=False)
    await chat.send_stream(chat.cordelia, "Verona", "a", "@**King Hamlet** hi")
    assert await _mail_due(chat) == 0
    await _sub_property(chat, chat.hamlet, stream_id, "email_notifications", True)
    await chat.send_stream(chat.cordelia, "Verona", "a", "@**King Hamlet** again")
    assert await _mail_due(chat) == 1


async def test_a_bad_wildcard_setting_is_refused(chat: ChatHarness) -> None:
    stream_id = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    resp = await chat.post(
        "/users/me/subscriptions/properties",
        chat.hamlet,
        subscription_data=[
            {"stream_id": stream_id, "property": "wildcard_mentions_notify", "value": "yes"}
        ],
    )
    assert resp.status_code == 400 and resp.json()["result"] == "error"


async def test_listening_counts_live_queues_that_take_messages_only() -> None:
    queues = MemoryEventQueues()
    live = await queues.register(1, QueueOptions())
    await queues.register(2, QueueOptions(event_types=frozenset({"presence"})))
    stale = await queues.register(3, QueueOptions(event_types=frozenset({"message"})))
    # Not polled for longer than the queue timeout: as good as collected, before expire_idle.
    queues.queues[stale].last_touched -= QUEUE_TIMEOUT_SECONDS + 1
    assert await queues.listening([1, 2, 3, 4]) == {1}
    await queues.delete(live, 1)
    assert await queues.listening([1]) == set()
    assert await queues.listening([]) == set()
