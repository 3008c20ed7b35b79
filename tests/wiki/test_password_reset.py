"""Special:PasswordReset and action=resetpassword: a temporary password mailed in MediaWiki's
words, the same answer whatever the request names, and signing in with it asks for a new
password, which then works while the temporary one no longer does."""

from __future__ import annotations

import re
from email.message import EmailMessage

import httpx
import pytest
from tests.mail_server import outbox_mails, text_part
from tests.wiki.conftest import PASSWORDS, WikiHarness
from tests.wiki.web_forms import LOGIN, hidden, sign_in

from atrium.wiki import schema
from atrium.wiki.changes.accounts import set_email
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio

RESET = "/w/index.php?title=Special:PasswordReset"


async def _give_email(wiki: WikiHarness, name: str, address: str) -> None:
    account = await wiki.db.read(account_by_name, name)
    await wiki.db.write(set_email, account.id, address)


async def _mails(wiki: WikiHarness) -> list[EmailMessage]:
    return await outbox_mails(wiki.db, schema.mail_outbox)


def _temporary(message: EmailMessage) -> str:
    match = re.search(r"Temporary password:\n(\S+)", text_part(message))
    assert match is not None, text_part(message)
    return match.group(1)


async def _ask(client: httpx.AsyncClient, **fields: str) -> httpx.Response:
    form = await client.get(RESET)
    token = hidden(form.text, "wpEditToken")
    return await client.post(RESET, data={"wpEditToken": token, **fields})


async def test_the_login_page_links_to_the_reset_form(client: httpx.AsyncClient) -> None:
    page = (await client.get(LOGIN)).text
    assert 'href="/wiki/Special:PasswordReset"' in page and "Forgot your password?" in page


async def test_a_reset_mails_a_temporary_password_that_leads_to_a_new_one(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _give_email(wiki, "Alice", "alice@example.org")
    known = await _ask(client, wpUsername="alice")
    unknown = await _ask(client, wpUsername="Nobody")
    no_address = await _ask(client, wpUsername="Admin")
    assert known.status_code == unknown.status_code == no_address.status_code == 200
    assert "You have requested a password reset." in known.text
    assert known.text == unknown.text == no_address.text
    [mail] = await _mails(wiki)
    assert mail["To"] == "Alice <alice@example.org>"
    assert mail["Subject"] == "Account details on Atrium Wiki"
    body = text_part(mail)
    assert "from IP address 127.0.0.1" in body
    assert "Username:\nAlice" in body
    assert "will expire in 7 days" in body
    temporary = _temporary(mail)

    # The old password still works; the temporary one asks for a new password first.
    asked = await sign_in(client, "Alice", temporary)
    assert asked.status_code == 200
    assert "You logged in with a temporary emailed code." in asked.text
    assert "atrium_session" not in client.cookies
    mismatch = await client.post(
        LOGIN,
        data={
            "wpName": "Alice",
            "wpPassword": hidden(asked.text, "wpPassword"),
            "wpLoginToken": hidden(asked.text, "wpLoginToken"),
            "wpResetPass": "1",
            "password": "brand-new-pass-1",
            "retype": "other",
        },
    )
    assert mismatch.status_code == 400
    done = await client.post(
        LOGIN,
        data={
            "wpName": "Alice",
            "wpPassword": temporary,
            "wpLoginToken": hidden(asked.text, "wpLoginToken"),
            "wpResetPass": "1",
            "password": "brand-new-pass-1",
            "retype": "brand-new-pass-1",
        },
    )
    assert done.status_code == 302
    info = (await client.get("/w/api.php?action=query&meta=userinfo&format=json")).json()
    assert info["query"]["userinfo"]["name"] == "Alice"
    async with wiki.client() as other:
        assert (await sign_in(other, "Alice", temporary)).status_code == 400
        assert (await sign_in(other, "Alice", PASSWORDS["Alice"])).status_code == 400
        assert (await sign_in(other, "Alice", "brand-new-pass-1")).status_code == 302


async def test_reset_by_address_lists_every_account_with_it(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _give_email(wiki, "Alice", "shared@example.org")
    await _give_email(wiki, "Robot", "Shared@example.org")
    await _ask(client, wpEmail="shared@example.org")
    [mail] = await _mails(wiki)
    body = text_part(mail)
    assert "The following user accounts are" in body
    assert "Username:\nAlice" in body and "Username:\nRobot" in body
    # Within a day, nobody gets another.
    await _ask(client, wpEmail="shared@example.org")
    assert len(await _mails(wiki)) == 1


async def test_the_form_checks_its_token_and_input(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _give_email(wiki, "Alice", "alice@example.org")
    forged = await client.post(RESET, data={"wpUsername": "Alice", "wpEditToken": "x"})
    assert forged.status_code == 403
    empty = await _ask(client)
    assert empty.status_code == 400 and "Neither a username nor an email address" in empty.text
    assert await _mails(wiki) == []


async def test_the_api_answers_success_and_mails(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _give_email(wiki, "Alice", "alice@example.org")
    token = await wiki.csrf(client)
    missing = await wiki.post(client, action="resetpassword", token=token)
    assert missing["error"]["code"] == "missingparam"
    ok = await wiki.post(client, action="resetpassword", user="Alice", token=token)
    assert ok == {"resetpassword": {"status": "success"}}
    nobody = await wiki.post(client, action="resetpassword", user="Nobody", token=token)
    assert nobody == ok
    no_token = await wiki.post(client, action="resetpassword", user="Alice")
    assert no_token["error"]["code"] == "missingparam"
    get = await wiki.api(client, action="resetpassword", user="Alice", token=token)
    assert get["error"]["code"] == "mustpostparams"
    [mail] = await _mails(wiki)
    assert mail["To"] == "Alice <alice@example.org>"


async def test_a_private_wiki_still_offers_the_reset_form(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    wiki.app.state.services["wiki"].state["runtime"].site.audience = "private"
    page = await client.get(RESET)
    assert page.status_code == 200 and 'name="wpUsername"' in page.text
