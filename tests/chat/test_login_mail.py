"""The new-login mail of a browser sign-in, and `enable_login_emails` turning it off (through
the mail's own unsubscribe link)."""

from __future__ import annotations

import re

import pytest

from atrium.chat import schema
from tests.chat.conftest import ChatHarness
from tests.chat.test_web_sessions import PASSWORD, sign_in
from tests.mail_server import outbox_mails, text_part

pytestmark = pytest.mark.anyio


async def test_a_sign_in_is_mailed_until_unsubscribed(chat: ChatHarness) -> None:
    await chat.make_user("lear", full_name="King Lear", password=PASSWORD)
    assert (await sign_in(chat.client, "lear@zulip.test")).status_code == 303
    [mail] = await outbox_mails(chat.runtime.db, schema.mail_outbox)
    assert mail["To"] == "King Lear <lear@zulip.test>"
    assert mail["Subject"] == "New login to Zulip Test"
    assert "/accounts/password/reset/" in text_part(mail)
    unsubscribe = re.sub(r"^https?://[^/]+", "", mail["List-Unsubscribe"].strip("<>"))
    assert unsubscribe.startswith("/accounts/unsubscribe/login/")
    assert (await chat.client.post(unsubscribe)).status_code == 200
    chat.client.cookies.clear()  # another browser
    assert (await sign_in(chat.client, "lear@zulip.test")).status_code == 303
    assert len(await outbox_mails(chat.runtime.db, schema.mail_outbox)) == 1


async def test_a_failed_sign_in_mails_nothing(chat: ChatHarness) -> None:
    await chat.make_user("lear", full_name="King Lear", password=PASSWORD)
    assert (await sign_in(chat.client, "lear@zulip.test", "wrong")).status_code == 401
    assert await outbox_mails(chat.runtime.db, schema.mail_outbox) == []
