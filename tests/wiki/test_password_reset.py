"""Special:PasswordReset and action=resetpassword: a temporary password mailed in MediaWiki's
words, the same answer whatever the request names, and signing in with it asks for a new
password, which then works while the temporary one no longer does."""

from __future__ import annotations

import re
from email.message import EmailMessage
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests.mail_server import text_part
from tests.wiki.conftest import PASSWORDS, WikiHarness
from tests.wiki.mailboxes import wiki_mails
from tests.wiki.web_forms import LOGIN, hidden, sign_in

from atrium.wiki import schema
from atrium.wiki.changes.accounts import set_email
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio

RESET = "/w/index.php?title=Special:PasswordReset"


async def _give_email(wiki: WikiHarness, name: str, address: str) -> None:
    account = await wiki.db.read(account_by_name, name)
    await wiki.db.write(set_email, account.id, address)


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
    [mail] = await wiki_mails(wiki)
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
    assert mismatch.status_code == 200 and "do not match" in mismatch.text
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
        for refused in (temporary, PASSWORDS["Alice"]):
            wrong = await sign_in(other, "Alice", refused)
            assert wrong.status_code == 200 and "Incorrect username or password" in wrong.text
        assert (await sign_in(other, "Alice", "brand-new-pass-1")).status_code == 302


async def test_reset_by_address_lists_every_account_with_it(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _give_email(wiki, "Alice", "shared@example.org")
    await _give_email(wiki, "Robot", "Shared@example.org")
    await _ask(client, wpEmail="shared@example.org")
    [mail] = await wiki_mails(wiki)
    body = text_part(mail)
    assert "The following user accounts are" in body
    assert "Username:\nAlice" in body and "Username:\nRobot" in body
    # Within a day, nobody gets another.
    await _ask(client, wpEmail="shared@example.org")
    assert len(await wiki_mails(wiki)) == 1


async def test_the_form_checks_its_token_and_input(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _give_email(wiki, "Alice", "alice@example.org")
    forged = await client.post(RESET, data={"wpUsername": "Alice", "wpEditToken": "x"})
    assert forged.status_code == 200 and "session hijacking" in forged.text
    empty = await _ask(client)
    assert empty.status_code == 200 and "Neither a username nor an email address" in empty.text
    assert await wiki_mails(wiki) == []


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
    [mail] = await wiki_mails(wiki)
    assert mail["To"] == "Alice <alice@example.org>"


async def test_a_private_wiki_still_offers_the_reset_form(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    wiki.app.state.services["wiki"].state["runtime"].site.audience = "private"
    page = await client.get(RESET)
    assert page.status_code == 200 and 'name="wpUsername"' in page.text


def _client_from(wiki: WikiHarness, ip: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=wiki.app, client=(ip, 12345))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080")


async def _block(wiki: WikiHarness, target: str, **flags: str) -> None:
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        token = await wiki.csrf(admin)
        done = await wiki.post(admin, action="block", user=target, reason="r", token=token, **flags)
        assert "block" in done, done


async def test_a_blocked_address_may_not_ask_for_resets(wiki: WikiHarness) -> None:
    await _give_email(wiki, "Alice", "alice@example.org")
    await _block(wiki, "192.0.2.9", nocreate="1")
    async with _client_from(wiki, "192.0.2.9") as vandal:
        page = await vandal.get(RESET)
        assert "Internal error" in page.text
        assert "it is not allowed to use password recovery from this IP address" in page.text
        assert 'name="wpUsername"' not in page.text
        # Posting the form anyway (with a token from elsewhere) changes nothing.
        posted = await vandal.post(RESET, data={"wpUsername": "Alice", "wpEditToken": "+\\"})
        assert "password recovery" in posted.text
        token = await wiki.csrf(vandal)
        refused = await wiki.post(vandal, action="resetpassword", user="Alice", token=token)
        assert refused["error"]["code"] == "blocked-mailpassword"
        assert "password recovery" in refused["error"]["info"]
    assert await wiki_mails(wiki) == []


async def test_a_block_that_allows_account_creation_allows_resets(wiki: WikiHarness) -> None:
    await _give_email(wiki, "Alice", "alice@example.org")
    await _block(wiki, "192.0.2.10")
    async with _client_from(wiki, "192.0.2.10") as reader:
        token = await wiki.csrf(reader)
        ok = await wiki.post(reader, action="resetpassword", user="Alice", token=token)
        assert ok == {"resetpassword": {"status": "success"}}
    assert len(await wiki_mails(wiki)) == 1


async def test_a_blocked_account_may_not_ask_for_resets(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _give_email(wiki, "Robot", "robot@example.org")
    await _block(wiki, "Alice", nocreate="1")
    await wiki.login(client, "Alice")
    token = await wiki.csrf(client)
    refused = await wiki.post(client, action="resetpassword", user="Robot", token=token)
    assert refused["error"]["code"] == "blocked-mailpassword"
    page = await client.get(RESET)
    assert "password recovery" in page.text and 'name="wpUsername"' not in page.text
    assert await wiki_mails(wiki) == []


# --- The temporary password through the API ------------------------------------------------------


async def _temporary_for(wiki: WikiHarness, client: httpx.AsyncClient, name: str) -> str:
    await _give_email(wiki, name, f"{name.lower()}@example.org")
    token = await wiki.csrf(client)
    await wiki.post(client, action="resetpassword", user=name, token=token)
    return _temporary((await wiki_mails(wiki))[-1])


async def _clientlogin(
    wiki: WikiHarness, client: httpx.AsyncClient, **params: str
) -> dict[str, Any]:
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    result = await wiki.post(client, action="clientlogin", logintoken=token, **params)
    answer: dict[str, Any] = result["clientlogin"]
    return answer


async def _continue(wiki: WikiHarness, client: httpx.AsyncClient, **params: str) -> dict[str, Any]:
    return await _clientlogin(wiki, client, logincontinue="1", **params)


async def _signed_in_as(wiki: WikiHarness, client: httpx.AsyncClient) -> str:
    info = await wiki.api(client, action="query", meta="userinfo")
    return str(info["query"]["userinfo"]["name"])


async def test_action_login_with_a_temporary_password_is_aborted(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    temporary = await _temporary_for(wiki, client, "Alice")
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    result = await wiki.post(
        client, action="login", lgname="Alice", lgpassword=temporary, lgtoken=token
    )
    assert result["login"]["result"] == "Aborted"
    assert result["login"]["reason"] == (
        'Authentication requires user interaction, which is not supported by "action=login". '
        'To be able to login with "action=login", see [[Special:BotPasswords]]. To continue '
        'using main-account login, see "[[Special:ApiHelp/clientlogin|action=clientlogin]]".'
    )
    assert await _signed_in_as(wiki, client) == "127.0.0.1"


async def test_clientlogin_asks_for_a_new_password_then_signs_in(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    temporary = await _temporary_for(wiki, client, "Alice")
    asked = await _clientlogin(
        wiki, client, username="Alice", password=temporary, loginreturnurl="http://x/"
    )
    # MediaWiki 1.39's answer, word for word (checked against the reference install).
    assert asked == {
        "status": "UI",
        "requests": [
            {
                "id": "MediaWiki\\Auth\\PasswordAuthenticationRequest",
                "metadata": {},
                "required": "required",
                "provider": "Password-based authentication",
                "account": "Alice",
                "fields": {
                    "password": {
                        "type": "password",
                        "label": "New password:",
                        "help": "Password for authentication.",
                        "sensitive": "",
                    },
                    "retype": {
                        "type": "password",
                        "label": "Retype new password:",
                        "help": "Password again to confirm.",
                        "sensitive": "",
                    },
                },
            }
        ],
        "message": "You logged in with a temporary emailed code.\n"
        "To finish logging in, you must set a new password here:",
        "messagecode": "resetpass-temp-emailed",
    }
    assert await _signed_in_as(wiki, client) == "127.0.0.1"  # not yet

    mismatch = await _continue(wiki, client, password="brand-new-pass-1", retype="other")
    assert mismatch["status"] == "UI" and mismatch["messagecode"] == "badretype"
    weak = await _continue(wiki, client, password="alice", retype="alice")
    assert weak["status"] == "UI"
    assert weak["messagecode"] == "password-substring-username-match"
    again = await _continue(wiki, client)
    assert again["status"] == "UI" and again["messagecode"] == "resetpass-temp-emailed"

    done = await _continue(wiki, client, password="brand-new-pass-1", retype="brand-new-pass-1")
    assert done == {"status": "PASS", "username": "Alice"}
    assert await _signed_in_as(wiki, client) == "Alice"
    async with wiki.client() as other:
        old = await _clientlogin(
            wiki, other, username="Alice", password=temporary, loginreturnurl="http://x/"
        )
        assert old["status"] == "FAIL" and old["messagecode"] == "wrongpassword"
        new = await _clientlogin(
            wiki, other, username="Alice", password="brand-new-pass-1", loginreturnurl="http://x/"
        )
        assert new["status"] == "PASS"


async def test_the_step_is_single_use_and_bound_to_its_session(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    temporary = await _temporary_for(wiki, client, "Alice")
    await _clientlogin(
        wiki, client, username="Alice", password=temporary, loginreturnurl="http://x/"
    )
    step = client.cookies.get("atrium_wiki_newpass")
    assert step
    async with wiki.client() as thief:
        # The step's cookie without its session, or with a forged signature, opens nothing.
        await wiki.api(thief, action="query", meta="tokens", type="login")
        thief.cookies.set("atrium_wiki_newpass", step)
        stolen = await _continue(wiki, thief, password="thief-pass-123", retype="thief-pass-123")
        assert stolen["status"] == "FAIL"
        assert stolen["messagecode"] == "authmanager-authn-not-in-progress"
        thief.cookies.set("atrium_wiki_newpass", step[:-4] + "AAAA")
        forged = await _continue(wiki, thief, password="thief-pass-123", retype="thief-pass-123")
        assert forged["status"] == "FAIL"
    # Another session takes the same temporary password through first: it is used up, and
    # the first session's step, though still its own and unexpired, opens nothing.
    async with wiki.client() as other:
        await _clientlogin(
            wiki, other, username="Alice", password=temporary, loginreturnurl="http://x/"
        )
        first = await _continue(wiki, other, password="brand-new-pass-1", retype="brand-new-pass-1")
        assert first["status"] == "PASS"
    late = await _continue(wiki, client, password="other-pass-456", retype="other-pass-456")
    assert late["status"] == "FAIL"
    assert late["messagecode"] == "authmanager-authn-not-in-progress"
    async with wiki.client() as later:
        ok = await _clientlogin(
            wiki, later, username="Alice", password="brand-new-pass-1", loginreturnurl="http://x/"
        )
        assert ok["status"] == "PASS"
        no = await _clientlogin(
            wiki, later, username="Alice", password="other-pass-456", loginreturnurl="http://x/"
        )
        assert no["status"] == "FAIL"


async def test_an_expired_temporary_password_opens_nothing(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    temporary = await _temporary_for(wiki, client, "Alice")
    user = schema.user
    await wiki.db.write(
        lambda conn: conn.execute(
            sa.update(user)
            .where(user.c.user_name == "Alice")
            .values(user_newpass_time="20000101000000")
        )
    )
    result = await _clientlogin(
        wiki, client, username="Alice", password=temporary, loginreturnurl="http://x/"
    )
    assert result["status"] == "FAIL" and result["messagecode"] == "wrongpassword"


async def test_continuing_with_nothing_in_progress_fails(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    result = await _continue(wiki, client, password="x-pass-1234", retype="x-pass-1234")
    assert result["status"] == "FAIL"
    assert result["messagecode"] == "authmanager-authn-not-in-progress"
