"""A member's one address: asked for on either service, one confirmation mail goes to the new
address, and following its link sets the chat user's and the wiki user's address (confirmed)
at once. A wiki account no identity owns keeps the wiki's own way."""

from __future__ import annotations

import base64
import re
import time
from email.message import EmailMessage

import httpx
import pytest
import sqlalchemy as sa

from atrium.chat import schema as chat_schema
from atrium.chat.actions.email_change import LINK_SECONDS, _fingerprint
from atrium.core.db import Database
from atrium.core.signing import sign
from atrium.wiki import schema as wiki_schema
from atrium.wiki.changes.registration import autocreate
from atrium.workspace import identities
from tests.mail_server import link_in, outbox_mails
from tests.wiki.web_forms import hidden
from tests.workspace.conftest import PASSWORD, Workspace
from tests.workspace.signing import (
    change_address_on_chat,
    chat_sign_in,
    csrf_of,
    wiki_sign_in,
    wiki_user,
)

pytestmark = pytest.mark.anyio

CHANGE = "/w/index.php?title=Special:ChangeEmail"
PREFERENCES = "/w/index.php?title=Special:Preferences"
CONFIRM = r"https?://\S+/accounts/confirm_new_email/\S+/"


def _wiki_db(workspace: Workspace) -> Database:
    db = workspace.members.wiki_db()
    assert db is not None
    return db


async def _mails(workspace: Workspace) -> tuple[list[EmailMessage], list[EmailMessage]]:
    """What the chat's and the wiki's outboxes hold (but the chat's new-login notices, which a
    chat sign-in sends)."""
    chat = await outbox_mails(workspace.chat.db, chat_schema.mail_outbox)
    wiki = await outbox_mails(_wiki_db(workspace), wiki_schema.mail_outbox)
    return [m for m in chat if not str(m["Subject"]).startswith("New login to ")], wiki


async def _change_on_wiki(
    client: httpx.AsyncClient, new_email: str, password: str = PASSWORD
) -> httpx.Response:
    form = await client.get(CHANGE)
    token = hidden(form.text, "wpEditToken")
    return await client.post(
        CHANGE, data={"wpNewEmail": new_email, "wpPassword": password, "wpEditToken": token}
    )


async def _chat_address(workspace: Workspace, user_id: int) -> str:
    U = chat_schema.user.c
    return str(
        await workspace.chat.db.read(
            lambda conn: conn.scalar(sa.select(U.delivery_email).where(U.id == user_id))
        )
    )


def _path(link: str) -> str:
    return re.sub(r"^https?://[^/]+", "", link)


async def test_a_members_wiki_address_is_confirmed_from_the_start(workspace: Workspace) -> None:
    await workspace.member("maya@example.com", "Maya Lin")
    assert (await wiki_sign_in(workspace.client, "maya@example.com")).status_code == 302
    info = await wiki_user(workspace.client, "email")
    # Confirmed by the chat (its invitation or sign-up): the wiki asks for no second link.
    assert info["email"] == "maya@example.com"
    assert str(info["emailauthenticated"]).endswith("Z")


async def test_a_new_address_asked_on_the_wiki_is_mailed_once_and_set_for_both(
    workspace: Workspace,
) -> None:
    maya = await workspace.member("maya@example.com", "Maya Lin")
    client = workspace.client
    assert (await wiki_sign_in(client, "Maya Lin")).status_code == 302
    asked = await _change_on_wiki(client, "maya@new.example")
    assert asked.status_code == 200, asked.text
    assert "confirmation link was sent to maya@new.example" in asked.text
    chat_mails, wiki_mails = await _mails(workspace)
    # One mail, to the new address, and nothing from the wiki's own confirmation.
    assert [m["To"] for m in chat_mails] == ["Maya Lin <maya@new.example>"]
    assert wiki_mails == []
    # Nothing changes before the link is followed.
    assert await _chat_address(workspace, maya.chat_user_id) == "maya@example.com"
    assert (await wiki_user(client, "email"))["email"] == "maya@example.com"

    async with workspace.browser() as anyone:  # the link is the proof: no sign-in needed
        followed = await anyone.get(_path(link_in(chat_mails[0], CONFIRM)))
        assert followed.status_code == 200 and "maya@new.example" in followed.text
    assert await _chat_address(workspace, maya.chat_user_id) == "maya@new.example"
    info = await wiki_user(client, "email")
    assert info["email"] == "maya@new.example"
    assert str(info["emailauthenticated"]).endswith("Z")
    identity = await workspace.members.core_db.read(identities.by_id, maya.identity)
    assert identity["email"] == "maya@new.example"
    async with workspace.browser() as other:
        assert (await chat_sign_in(other, "maya@new.example")).status_code == 303
    assert len((await _mails(workspace))[0]) == 1  # and still one mail


async def test_a_new_address_asked_on_the_chat_is_mailed_once_and_set_for_both(
    workspace: Workspace,
) -> None:
    await workspace.member("maya@example.com", "Maya Lin")
    client = workspace.client
    assert (await chat_sign_in(client, "maya@example.com")).status_code == 303
    await change_address_on_chat(client, "maya@new.example")
    chat_mails, wiki_mails = await _mails(workspace)
    assert [m["To"] for m in chat_mails] == ["Maya Lin <maya@new.example>"] and wiki_mails == []
    assert (await client.get(_path(link_in(chat_mails[0], CONFIRM)))).status_code == 200
    info = await wiki_user(client, "email")
    assert info["email"] == "maya@new.example"
    assert str(info["emailauthenticated"]).endswith("Z")
    assert (await _mails(workspace))[1] == []
    # Both sign-in forms take the new address, and no longer the old one.
    async with workspace.browser() as other:
        assert (await wiki_sign_in(other, "maya@new.example")).status_code == 302
    async with workspace.browser() as other:
        assert (await wiki_sign_in(other, "maya@example.com")).status_code != 302


async def test_the_preferences_form_asks_the_same_way(workspace: Workspace) -> None:
    maya = await workspace.member("maya@example.com", "Maya Lin")
    client = workspace.client
    assert (await wiki_sign_in(client, "Maya Lin")).status_code == 302
    form = await client.get(PREFERENCES)
    token = hidden(form.text, "wpEditToken")
    saved = await client.post(
        PREFERENCES,
        data={"wpEmailAddress": "maya@prefs.example", "wpPassword": PASSWORD,
              "wpEditToken": token},
    )  # fmt: skip
    assert saved.status_code in (200, 302, 303), saved.text
    chat_mails, wiki_mails = await _mails(workspace)
    assert [m["To"] for m in chat_mails] == ["Maya Lin <maya@prefs.example>"]
    assert wiki_mails == []
    assert (await wiki_user(client, "email"))["email"] == "maya@example.com"
    assert (await client.get(_path(link_in(chat_mails[0], CONFIRM)))).status_code == 200
    assert await _chat_address(workspace, maya.chat_user_id) == "maya@prefs.example"
    assert (await wiki_user(client, "email"))["email"] == "maya@prefs.example"


async def test_the_wiki_refuses_what_the_chat_refuses(workspace: Workspace) -> None:
    await workspace.member("maya@example.com", "Maya Lin")
    await workspace.member("olivia@example.com", "Olivia")
    client = workspace.client
    assert (await wiki_sign_in(client, "Maya Lin")).status_code == 302
    taken = await _change_on_wiki(client, "OLIVIA@example.com")
    assert taken.status_code == 200 and "Email is already in use." in taken.text
    injected = await _change_on_wiki(client, "maya@new.example\r\nBcc: eve@evil.example")
    assert injected.status_code == 200
    removed = await _change_on_wiki(client, "")
    assert removed.status_code == 200 and "cannot be removed" in removed.text
    wrong = await _change_on_wiki(client, "maya@new.example", password="not-the-password")
    assert wrong.status_code == 200
    assert await _mails(workspace) == ([], [])
    assert (await wiki_user(client, "email"))["email"] == "maya@example.com"
    # The chat refuses a header injection too, in its own error format.
    async with workspace.browser() as chat:
        assert (await chat_sign_in(chat, "maya@example.com")).status_code == 303
        csrf = csrf_of(await chat.get("/"))
        answer = await chat.patch(
            "/json/settings",
            data={"email": "maya@new.example\r\nBcc: eve@evil.example"},
            headers={"X-CSRFToken": csrf},
        )
        assert answer.status_code == 400
        assert answer.json() == {"result": "error", "msg": "Invalid address.",
                                 "code": "BAD_REQUEST"}  # fmt: skip
    assert await _mails(workspace) == ([], [])


async def test_a_link_changes_only_its_own_account_once(workspace: Workspace) -> None:
    maya = await workspace.member("maya@example.com", "Maya Lin")
    bob = await workspace.member("bob@example.com", "Bob")
    client = workspace.client
    assert (await wiki_sign_in(client, "Maya Lin")).status_code == 302
    assert (await _change_on_wiki(client, "maya@new.example")).status_code == 200
    [mail] = (await _mails(workspace))[0]
    link = _path(link_in(mail, CONFIRM))
    token = link.rstrip("/").rsplit("/", 1)[1]
    # The same signature over another account's id: refused.
    payload, mac = token.split(".", 1)
    padded = payload + "=" * (-len(payload) % 4)
    value = base64.urlsafe_b64decode(padded).decode()
    forged_value = value.replace(f":{maya.chat_user_id}:", f":{bob.chat_user_id}:", 1)
    forged = base64.urlsafe_b64encode(forged_value.encode()).decode().rstrip("=") + "." + mac
    async with workspace.browser() as eve:
        refused = await eve.get(f"/accounts/confirm_new_email/{forged}/")
        assert refused.status_code == 404 and "Link not valid" in refused.text
        # An expired link, well signed: refused with the same page.
        secret = workspace.chat.secret
        stale = sign(
            secret,
            f"emailchange:{maya.chat_user_id}:{_fingerprint('maya@example.com')}:eve@x.example",
            LINK_SECONDS,
            now=time.time() - 2 * LINK_SECONDS,
        )
        expired = await eve.get(f"/accounts/confirm_new_email/{stale}/")
        assert expired.status_code == 404 and "Link not valid" in expired.text
    assert await _chat_address(workspace, bob.chat_user_id) == "bob@example.com"
    assert await _chat_address(workspace, maya.chat_user_id) == "maya@example.com"
    # The real link works once; used, it is refused with the error page.
    assert (await client.get(link)).status_code == 200
    used = await client.get(link)
    assert used.status_code == 404 and "Link not valid" in used.text
    assert await _chat_address(workspace, maya.chat_user_id) == "maya@new.example"
    assert (await wiki_user(client, "email"))["email"] == "maya@new.example"


async def test_an_unlinked_wiki_account_keeps_the_wikis_own_way(workspace: Workspace) -> None:
    await _wiki_db(workspace).write(
        lambda conn: autocreate(conn, "Wiki Only", PASSWORD, email="wo@example.com")
    )
    client = workspace.client
    assert (await wiki_sign_in(client, "Wiki Only")).status_code == 302
    assert (await _change_on_wiki(client, "wo@new.example")).status_code == 200
    chat_mails, wiki_mails = await _mails(workspace)
    assert chat_mails == []
    [mail] = wiki_mails
    assert mail["To"] == "Wiki Only <wo@new.example>"
    assert "Special:ConfirmEmail/" in link_in(mail, r"https?://\S+/wiki/Special:ConfirmEmail/\w+")
    # MediaWiki's way: the address changes at once, unconfirmed.
    info = await wiki_user(client, "email")
    assert info["email"] == "wo@new.example" and "emailauthenticated" not in info
