"""Password reset through the browser pages: the link is mailed to known addresses only, the page
says the same for any address, and the link sets the password once, within a day."""

from __future__ import annotations

import email
import email.policy
import re
import time
from email.message import EmailMessage

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.password_reset import reset_token
from atrium.settings import RateLimits
from tests.chat.conftest import ChatHarness
from tests.chat.test_web_sessions import PASSWORD, sign_in

pytestmark = pytest.mark.anyio

RESET = "/accounts/password/reset/"


@pytest.fixture
async def lear(chat: ChatHarness) -> str:
    await chat.make_user("lear", full_name="King Lear", password=PASSWORD)
    return "lear@zulip.test"


async def _csrf(chat: ChatHarness, path: str) -> str:
    page = await chat.client.get(path)
    assert page.status_code == 200, page.text
    match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert match is not None
    return match.group(1)


async def _ask(chat: ChatHarness, address: str) -> tuple[int, str]:
    token = await _csrf(chat, RESET)
    response = await chat.client.post(RESET, data={"email": address, "csrf_token": token})
    done = await chat.client.get(RESET + "done/")
    return response.status_code, done.text


async def _mails(chat: ChatHarness) -> list[EmailMessage]:
    rows = await chat.runtime.db.read(
        lambda conn: conn.scalars(
            sa.select(schema.mail_outbox.c.message).order_by(schema.mail_outbox.c.id)
        )
    )
    return [
        email.message_from_string(raw, policy=email.policy.default)  # type: ignore[misc]
        for raw in rows
    ]


def _link(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    assert body is not None
    match = re.search(r"http://\S+/accounts/password/reset/(\S+)/", str(body.get_content()))
    assert match is not None
    return RESET + match.group(1) + "/"


async def test_the_sign_in_page_links_to_the_reset_form(chat: ChatHarness) -> None:
    page = await chat.client.get("/login")
    assert 'href="/accounts/password/reset/"' in page.text
    assert "Forgot your password?" in page.text


async def test_known_and_unknown_addresses_get_the_same_answer(
    chat: ChatHarness, lear: str
) -> None:
    known = await _ask(chat, lear.upper())
    unknown = await _ask(chat, "nobody@zulip.test")
    assert known == unknown
    assert known[0] == 303
    [mail] = await _mails(chat)
    assert mail["To"] == "King Lear <lear@zulip.test>"
    assert mail["Subject"] == "Reset your password for Zulip Test"
    assert mail["Reply-To"] == "noreply@127.0.0.1"
    assert mail.get_body(("html",)) is not None


async def test_the_link_sets_the_password_once(chat: ChatHarness, lear: str) -> None:
    await _ask(chat, lear)
    [mail] = await _mails(chat)
    link = _link(mail)
    token = await _csrf(chat, link)
    mismatch = await chat.client.post(
        link, data={"new_password1": "new-pass-1", "new_password2": "other", "csrf_token": token}
    )
    assert mismatch.status_code == 400
    assert "didn&#39;t match" in mismatch.text
    done = await chat.client.post(
        link,
        data={"new_password1": "new-pass-1", "new_password2": "new-pass-1", "csrf_token": token},
    )
    assert done.status_code == 200
    assert "Password reset complete" in done.text
    assert (await sign_in(chat.client, lear, PASSWORD)).status_code == 401
    assert (await sign_in(chat.client, lear, "new-pass-1")).status_code == 303
    again = await chat.client.get(link)
    assert again.status_code == 404
    assert "expired or has already been used" in again.text


async def test_forged_expired_and_csrf_less_requests_are_refused(
    chat: ChatHarness, lear: str
) -> None:
    secret = chat.runtime.secret
    user_id = chat.users["lear"].id
    stale = reset_token(secret, user_id, None, time.time() - 2 * 86400)
    assert (await chat.client.get(f"{RESET}{stale}/")).status_code == 404
    forged = reset_token(b"x" * 32, user_id, None, time.time())
    assert (await chat.client.get(f"{RESET}{forged}/")).status_code == 404
    assert (await chat.client.get(f"{RESET}garbage/")).status_code == 404
    no_csrf = await chat.client.post(RESET, data={"email": lear})
    assert no_csrf.status_code == 403
    too_long = await _ask(chat, "a" * 250 + "@x.test")
    assert too_long[0] == 400
    assert await _mails(chat) == []


async def test_a_link_cannot_set_the_password_of_someone_else(chat: ChatHarness, lear: str) -> None:
    # The token names its account; changing the id breaks the signature.
    token = reset_token(chat.runtime.secret, chat.users["lear"].id, None, time.time())
    payload = token.split(".")[0]
    other = payload.replace(payload[-4:], "AAAA") + "." + token.split(".")[1]
    assert (await chat.client.get(f"{RESET}{other}/")).status_code == 404


async def test_an_address_gets_at_most_two_links_an_hour(chat: ChatHarness, lear: str) -> None:
    object.__setattr__(
        chat.runtime, "settings", chat.runtime.settings.with_(rate_limits=RateLimits())
    )
    for _ in range(4):
        assert (await _ask(chat, lear))[0] == 303
    assert len(await _mails(chat)) == 2
