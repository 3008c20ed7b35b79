"""Invitations by email are mailed when made and when resent, with the sign-up link."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from tests.chat.conftest import ChatHarness, api_ok, assert_json_success
from tests.mail_server import html_part, link_in, outbox_mails

pytestmark = pytest.mark.anyio


async def test_an_invitation_is_mailed_and_resent_with_the_same_link(chat: ChatHarness) -> None:
    stream_id = await chat.make_stream("welcome", [chat.iago])
    await api_ok(
        chat,
        "POST",
        "/invites",
        chat.iago,
        invitee_emails="Newbie <newbie@zulip.test>, other@zulip.test",
        stream_ids=[stream_id],
    )
    mails = await outbox_mails(chat.runtime.db, schema.mail_outbox)
    assert sorted(str(m["To"]) for m in mails) == ["newbie@zulip.test", "other@zulip.test"]
    invites = (await api_ok(chat, "GET", "/invites", chat.iago))["invites"]
    newbie = next(i for i in invites if i["email"] == "newbie@zulip.test")
    [first] = [m for m in mails if m["To"] == "newbie@zulip.test"]
    assert first["Subject"] == "Iago invited you to join Zulip Test"
    assert link_in(first, r"http://\S+/join/\S+/") == newbie["link_url"]
    assert newbie["link_url"] in html_part(first)

    assert_json_success(await chat.post(f"/invites/{newbie['id']}/resend", chat.iago))
    again = (await outbox_mails(chat.runtime.db, schema.mail_outbox))[-1]
    assert again["To"] == "newbie@zulip.test"
    assert again["Message-ID"] != first["Message-ID"]
    assert link_in(again, r"http://\S+/join/\S+/") == newbie["link_url"]
    page = await chat.client.get(newbie["link_url"].removeprefix(chat.runtime.settings.base_url))
    assert page.status_code == 200
    assert "Join Zulip Test" in page.text


async def test_an_inviter_name_cannot_add_headers(chat: ChatHarness) -> None:
    # The API refuses such names; one made some other way (an import, the database) still
    # must not reach a header as two lines.
    user = schema.user
    await chat.runtime.db.write(
        lambda conn: conn.execute(
            sa.update(user)
            .where(user.c.id == chat.iago.id)
            .values(full_name="Iago\r\nBcc: x@evil.test")
        )
    )
    stream_id = await chat.make_stream("welcome", [chat.iago])
    await api_ok(
        chat, "POST", "/invites", chat.iago, invitee_emails="n@zulip.test", stream_ids=[stream_id]
    )
    [mail] = await outbox_mails(chat.runtime.db, schema.mail_outbox)
    assert mail["Bcc"] is None


async def test_a_refused_invitation_mails_nobody(chat: ChatHarness) -> None:
    stream_id = await chat.make_stream("welcome", [chat.iago])
    await chat.post(
        "/invites",
        chat.iago,
        invitee_emails="hamlet@zulip.test, not-an-address",
        stream_ids=[stream_id],
    )
    assert await outbox_mails(chat.runtime.db, schema.mail_outbox) == []
