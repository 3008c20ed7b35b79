"""Missed-message mails: what is still unread after the batching period is mailed, one mail per
conversation, as the recipient's settings say; the mail's unsubscribe link works signed out."""

from __future__ import annotations

import re
import time
from email.message import EmailMessage

import pytest

from atrium.chat import schema
from atrium.chat.email_notifications import MissedMessageMailer
from tests.chat.conftest import ChatHarness, api_ok
from tests.mail_server import html_part, outbox_mails, text_part

pytestmark = pytest.mark.anyio

LATER = 121.0  # just past Zulip's default batching period


async def _mail_due(chat: ChatHarness, after: float = LATER) -> int:
    return await MissedMessageMailer(chat.runtime, clock=lambda: time.time() + after).mail_due()


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
