"""Changing one's address: PATCH /settings with `email` mails the new address a link, and only
following it makes the change."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from tests.chat.conftest import ChatHarness, assert_json_error, assert_json_success
from tests.mail_server import link_in, outbox_mails

pytestmark = pytest.mark.anyio


async def _delivery_email(chat: ChatHarness, user_id: int) -> str:
    U = schema.user.c
    return str(
        await chat.runtime.db.read(
            lambda conn: conn.scalar(sa.select(U.delivery_email).where(U.id == user_id))
        )
    )


async def test_the_address_changes_when_the_mailed_link_is_followed(chat: ChatHarness) -> None:
    resp = await chat.patch("/settings", chat.hamlet, email="prince@elsinore.test")
    assert assert_json_success(resp)["account_email"].startswith("Check your email")
    assert await _delivery_email(chat, chat.hamlet.id) == "hamlet@zulip.test"  # not yet
    [mail] = await outbox_mails(chat.runtime.db, schema.mail_outbox)
    assert mail["To"] == "King Hamlet <prince@elsinore.test>"
    assert mail["Subject"] == "Verify your new email address for Zulip Test"
    link = re.sub(
        r"^https?://[^/]+", "", link_in(mail, r"https?://\S+/accounts/confirm_new_email/\S+/")
    )
    page = await chat.client.get(link)
    assert page.status_code == 200 and "prince@elsinore.test" in page.text
    assert await _delivery_email(chat, chat.hamlet.id) == "prince@elsinore.test"
    assert (await chat.client.get(link)).status_code == 404  # used
    assert (await chat.client.get("/accounts/confirm_new_email/forged.token/")).status_code == 404


async def test_a_refused_address_changes_nothing(chat: ChatHarness) -> None:
    resp = await chat.patch("/settings", chat.hamlet, email="not an address", enter_sends=True)
    assert_json_error(resp, "Invalid address.")
    taken = await chat.patch("/settings", chat.hamlet, email="cordelia@zulip.test")
    assert_json_error(taken, "Email is already in use.")
    await chat.runtime.db.write(
        lambda conn: conn.execute(sa.update(schema.realm).values(email_changes_disabled=True))
    )
    disabled = await chat.patch("/settings", chat.hamlet, email="new@zulip.test")
    assert_json_error(disabled, "Email address changes are disabled in this organization.")
    assert await outbox_mails(chat.runtime.db, schema.mail_outbox) == []
    U = schema.user.c
    enter_sends = await chat.runtime.db.read(
        lambda conn: conn.scalar(sa.select(U.enter_sends).where(U.id == chat.hamlet.id))
    )
    assert not enter_sends
