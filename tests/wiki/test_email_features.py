"""Special:ChangeEmail, Special:ConfirmEmail (with `emailauthenticated` in meta=userinfo),
Special:InvalidateEmail, and Special:EmailUser with action=emailuser: who may mail whom."""

from __future__ import annotations

import re
from email.message import EmailMessage

import httpx
import pytest
from tests.mail_server import text_part
from tests.wiki.conftest import PASSWORDS, WikiHarness
from tests.wiki.mailboxes import confirm_address, wiki_mails
from tests.wiki.web_forms import hidden, sign_in

from atrium.wiki.changes.accounts import set_options
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio

CHANGE = "/w/index.php?title=Special:ChangeEmail"
EMAIL_USER = "/w/index.php?title=Special:EmailUser"


async def _userinfo(client: httpx.AsyncClient) -> dict[str, object]:
    response = await client.get(
        "/w/api.php",
        params={"action": "query", "meta": "userinfo", "uiprop": "email", "format": "json"},
    )
    info: dict[str, object] = response.json()["query"]["userinfo"]
    return info


def _code(message: EmailMessage, page: str) -> str:
    match = re.search(rf"https?://\S+/wiki/Special:{page}/(\w+)", text_part(message))
    assert match is not None, text_part(message)
    return match.group(1)


async def test_a_changed_address_is_confirmed_by_the_mailed_link(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(client, "Alice")
    form = await client.get(CHANGE)
    token = hidden(form.text, "wpEditToken")
    wrong = await client.post(
        CHANGE, data={"wpNewEmail": "alice@example.org", "wpPassword": "nope", "wpEditToken": token}
    )
    assert wrong.status_code == 200 and await wiki_mails(wiki) == []
    assert "Incorrect username or password entered." in wrong.text
    done = await client.post(
        CHANGE,
        data={
            "wpNewEmail": "alice@example.org",
            "wpPassword": PASSWORDS["Alice"],
            "wpEditToken": token,
        },
    )
    assert done.status_code == 200
    info = await _userinfo(client)
    assert info["email"] == "alice@example.org" and "emailauthenticated" not in info
    [mail] = await wiki_mails(wiki)
    assert mail["To"] == "Alice <alice@example.org>"
    assert mail["Subject"] == "Atrium Wiki email address confirmation"
    assert 'account "Alice"' in text_part(mail)
    # MediaWiki answers a bad code with its message on a page (200), as every state of the page.
    bad = await client.get("/wiki/Special:ConfirmEmail/0123abcd")
    assert bad.status_code == 200 and "Invalid confirmation code" in bad.text
    confirmed = await client.get(f"/wiki/Special:ConfirmEmail/{_code(mail, 'ConfirmEmail')}")
    assert confirmed.status_code == 200 and "has now been confirmed" in confirmed.text
    assert str((await _userinfo(client))["emailauthenticated"]).endswith("Z")
    # Used up.
    again = await client.get(f"/wiki/Special:ConfirmEmail/{_code(mail, 'ConfirmEmail')}")
    assert again.status_code == 200 and "Invalid confirmation code" in again.text


async def test_the_cancel_link_withdraws_a_confirmation(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await confirm_address(wiki, "Alice", "alice@example.org")
    await sign_in(client, "Alice")
    page = await client.get("/wiki/Special:ConfirmEmail")
    sent = await client.post(
        "/w/index.php?title=Special:ConfirmEmail",
        data={"wpEditToken": hidden(page.text, "wpEditToken")},
    )
    assert sent.status_code == 200 and "Confirmation email sent." in sent.text
    [mail] = await wiki_mails(wiki)
    cancelled = await client.get(f"/wiki/Special:InvalidateEmail/{_code(mail, 'InvalidateEmail')}")
    assert cancelled.status_code == 200
    assert "emailauthenticated" not in await _userinfo(client)


async def test_email_user_needs_confirmed_addresses_and_respects_disablemail(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(client, "Alice")
    refused = await client.get(f"{EMAIL_USER}&target=Admin")
    assert refused.status_code == 200 and "No send address" in refused.text
    assert 'name="wpText"' not in refused.text
    await confirm_address(wiki, "Alice", "alice@example.org")
    form = await client.get("/wiki/Special:EmailUser/Admin")
    token = hidden(form.text, "wpEditToken")
    fields = {"wpTarget": "Admin", "wpSubject": "Hello", "wpText": "Hi there", "wpEditToken": token}
    unconfirmed = await client.post(EMAIL_USER, data=fields)
    assert unconfirmed.status_code == 200 and "not specified a valid email" in unconfirmed.text
    await confirm_address(wiki, "Admin", "admin@example.org")
    sent = await client.post(EMAIL_USER, data={**fields, "wpCCMe": "1"})
    assert sent.status_code == 200 and "Your email message has been sent." in sent.text
    to_admin, copy = await wiki_mails(wiki)
    assert to_admin["To"] == "Admin <admin@example.org>"
    assert to_admin["Reply-To"] == "alice@example.org"
    assert to_admin["Subject"] == "Hello"
    assert 'by the "Email this user" function' in text_part(to_admin)
    assert copy["To"] == "Alice <alice@example.org>"
    admin = await wiki.db.read(account_by_name, "Admin")
    await wiki.db.write(set_options, admin.id, {"disablemail": "1"}, False)
    off = await client.post(EMAIL_USER, data=fields)
    assert off.status_code == 200 and "chosen not to receive email" in off.text
    assert len(await wiki_mails(wiki)) == 2


async def test_the_api_mails_refuses_and_keeps_headers_whole(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await confirm_address(wiki, "Admin", "admin@example.org")
    await wiki.login(client, "Alice")
    token = await wiki.csrf(client)
    unconfirmed = await wiki.post(client, action="emailuser", target="Admin", text="x", token=token)
    assert unconfirmed["error"]["code"] == "mailnologin"
    await confirm_address(wiki, "Alice", "alice@example.org")
    nobody = await wiki.post(client, action="emailuser", target="Nobody", text="x", token=token)
    assert nobody["error"]["code"] == "notarget"
    robot = await wiki.post(client, action="emailuser", target="Robot", text="x", token=token)
    assert robot["error"]["code"] == "noemail"
    ok = await wiki.post(
        client,
        action="emailuser",
        target="Admin",
        subject="Hi\r\nBcc: victim@example.net",
        text="Hello",
        token=token,
    )
    assert ok == {"emailuser": {"result": "Success"}}
    [mail] = await wiki_mails(wiki)
    assert mail["Bcc"] is None and mail["Subject"] == "Hi Bcc: victim@example.net"
    # MediaWiki's emailuser limit for a (autoconfirmed) user: twenty a day.
    results = [
        await wiki.post(client, action="emailuser", target="Admin", text="again", token=token)
        for _ in range(20)
    ]
    assert "error" not in results[-2]
    assert results[-1]["error"]["code"] == "ratelimited"
    assert len(await wiki_mails(wiki)) == 20
