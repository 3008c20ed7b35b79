"""The weekly digest: only when the organization has digests on and it is its digest weekday,
only to members with enable_digest_emails, once a week, with the week's busiest conversations."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.digest import mail_digests
from tests.chat.conftest import ChatHarness, api_ok
from tests.mail_server import outbox_mails, text_part

pytestmark = pytest.mark.anyio


async def _digests(chat: ChatHarness, now: float) -> int:
    rt = chat.runtime
    return await rt.db.write(mail_digests, rt.composer, rt.secret, now)


async def _realm(chat: ChatHarness, **values: object) -> None:
    await chat.runtime.db.write(lambda conn: conn.execute(sa.update(schema.realm).values(**values)))


async def test_digests_follow_the_organization_and_the_member(chat: ChatHarness) -> None:
    now = time.time()
    today = time.gmtime(now).tm_wday
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    await chat.send_stream(chat.cordelia, "Verona", "plans", "one")
    await chat.send_stream(chat.cordelia, "Verona", "plans", "two")
    await _realm(chat, digest_emails_enabled=False, digest_weekday=today)
    assert await _digests(chat, now) == 0
    await _realm(chat, digest_emails_enabled=True, digest_weekday=(today + 1) % 7)
    assert await _digests(chat, now) == 0  # not the digest weekday
    await _realm(chat, digest_weekday=today)
    await api_ok(chat, "PATCH", "/settings", chat.iago, enable_digest_emails=False)
    assert await _digests(chat, now) > 0
    mails = {
        m["To"].addresses[0].addr_spec: m
        for m in await outbox_mails(chat.runtime.db, schema.mail_outbox)
    }
    assert "iago@zulip.test" not in mails
    hamlet = mails["hamlet@zulip.test"]
    assert hamlet["Subject"] == "Zulip Test digest"
    assert "#Verona > plans (2 messages)" in text_part(hamlet)
    assert hamlet["List-Unsubscribe"]
    # Polonius is not subscribed, but Verona is new and public.
    assert "New streams:" in text_part(mails["polonius@zulip.test"])
    count = len(mails)
    assert await _digests(chat, now + 3600) == 0  # once a week
    assert len(await outbox_mails(chat.runtime.db, schema.mail_outbox)) == count
