"""Watchlist mail for the logged actions beyond deletion, restoration and moves: MediaWiki 1.39
mails the watchers for the recent-changes row of every published log entry (RecentChange::save),
"created" for a new file and "changed" for the rest (RecentChange::newLogEntry), with no diff
link (a log entry's rc_last_oldid is 0). A rollback is a minor edit and mails as one."""

from __future__ import annotations

from email.message import EmailMessage

import httpx
import pytest
from tests.mail_server import text_part
from tests.wiki.conftest import WikiHarness
from tests.wiki.mailboxes import confirm_address, wiki_mails
from tests.wiki.uploads import PNG, upload

from atrium.wiki.changes.accounts import set_options
from atrium.wiki.changes.watching import mark_seen, set_watch

pytestmark = pytest.mark.anyio

SERVER = "http://127.0.0.1:8080"


async def _watch(wiki: WikiHarness, user_id: int, title: str) -> None:
    await wiki.db.write(set_watch, user_id, wiki.site.parser.parse(title), True)


async def _seen(wiki: WikiHarness, user_id: int, title: str) -> None:
    await wiki.db.write(mark_seen, user_id, wiki.site.parser.parse(title))


async def _ok(wiki: WikiHarness, client: httpx.AsyncClient, **params: str) -> dict[str, object]:
    kind = params["action"]
    if kind in ("userrights", "rollback"):
        tokens = await wiki.api(client, action="query", meta="tokens", type=kind)
        token = tokens["query"]["tokens"][f"{kind}token"]
    else:
        token = await wiki.csrf(client)
    result: dict[str, object] = await wiki.post(client, token=token, **params)
    assert "error" not in result, result
    return result


def _changed(mail: EmailMessage, title: str, url_title: str, summary: str) -> None:
    """MediaWiki's "changed" texts for a log entry: its reason as the summary, no diff link."""
    assert mail["To"] == "Alice <alice@example.org>"
    assert mail["Subject"] == f"Atrium Wiki page {title} has been changed by Admin"
    body = text_part(mail)
    assert body.startswith("Dear Alice,")
    assert f"The Atrium Wiki page {title} has been changed on" in body
    assert f"by Admin, see {SERVER}/wiki/{url_title} for the current revision." in body
    assert f"Editor's summary: {summary}" in body
    assert "To view this change" not in body


async def test_protection_and_its_removal_mail_the_watchers(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await wiki.edit_page("Grape", "some text")
    await _watch(wiki, alice, "Grape")
    await wiki.login(client, "Admin")
    await _ok(wiki, client, action="protect", title="Grape", protections="edit=sysop",
              reason="vandals")  # fmt: skip
    [mail] = await wiki_mails(wiki)
    _changed(mail, "Grape", "Grape", "vandals")
    await _seen(wiki, alice, "Grape")
    await _ok(wiki, client, action="protect", title="Grape", protections="edit=all",
              reason="calm again")  # fmt: skip
    mails = await wiki_mails(wiki)
    assert len(mails) == 2
    _changed(mails[1], "Grape", "Grape", "calm again")


async def test_a_new_file_is_created_and_a_new_version_changes_it(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await _watch(wiki, alice, "File:Kiwi.png")  # watched before it exists
    await wiki.login(client, "Admin")
    await upload(wiki, client, "Kiwi.png", PNG)
    [mail] = await wiki_mails(wiki)
    assert mail["Subject"] == "Atrium Wiki page File:Kiwi.png has been created by Admin"
    body = text_part(mail)
    assert "The Atrium Wiki page File:Kiwi.png has been created on" in body
    assert "Editor's summary: upload Kiwi.png" in body
    await _seen(wiki, alice, "File:Kiwi.png")
    await upload(wiki, client, "Kiwi.png", PNG + b"\x00")
    mails = await wiki_mails(wiki)
    assert len(mails) == 2
    _changed(mails[1], "File:Kiwi.png", "File:Kiwi.png", "upload Kiwi.png")


async def test_blocks_and_rights_mail_the_watchers_of_the_user_page(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await _watch(wiki, alice, "User:Robot")
    await wiki.login(client, "Admin")
    await _ok(wiki, client, action="block", user="Robot", expiry="1 week", reason="runaway")
    [mail] = await wiki_mails(wiki)
    _changed(mail, "User:Robot", "User:Robot", "runaway")
    await _seen(wiki, alice, "User:Robot")
    await _ok(wiki, client, action="unblock", user="Robot", reason="fixed")
    mails = await wiki_mails(wiki)
    assert len(mails) == 2
    _changed(mails[1], "User:Robot", "User:Robot", "fixed")
    await _seen(wiki, alice, "User:Robot")
    await _ok(wiki, client, action="userrights", user="Robot", remove="bot", reason="retired")
    mails = await wiki_mails(wiki)
    assert len(mails) == 3
    _changed(mails[2], "User:Robot", "User:Robot", "retired")
    # Not seen since: the next logged action sends nothing until Alice looks.
    await _ok(wiki, client, action="userrights", user="Robot", add="bot", reason="back")
    assert len(await wiki_mails(wiki)) == 3


async def test_revision_deletion_mails_the_watchers(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    rev_id = await wiki.edit_page("Huckleberry", "some text", summary="rude words")
    await wiki.edit_page("Huckleberry", "more text")
    await _watch(wiki, alice, "Huckleberry")
    await wiki.login(client, "Admin")
    await _ok(wiki, client, action="userrights", user="Admin", add="suppress")  # may hide
    await _ok(wiki, client, action="revisiondelete", type="revision", ids=str(rev_id),
              hide="comment", reason="rude")  # fmt: skip
    [mail] = await wiki_mails(wiki)
    _changed(mail, "Huckleberry", "Huckleberry", "rude")


async def test_an_account_made_for_someone_mails_the_watchers_of_its_user_page(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await _watch(wiki, alice, "User:Newcomer")
    await wiki.login(client, "Admin")
    token = (await wiki.api(client, action="query", meta="tokens", type="createaccount"))["query"][
        "tokens"
    ]["createaccounttoken"]
    made = await wiki.post(
        client, action="createaccount", username="Newcomer", password="newcomer-password-1",
        retype="newcomer-password-1", reason="for the team", createreturnurl=SERVER,
        createtoken=token,
    )  # fmt: skip
    assert made["createaccount"]["status"] == "PASS", made
    [mail] = await wiki_mails(wiki)
    _changed(mail, "User:Newcomer", "User:Newcomer", "for the team")


async def test_a_rollback_mails_as_a_minor_edit(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await wiki.edit_page("Jujube", "good text")
    await wiki.edit_page("Jujube", "bad text", user="Robot")
    await _watch(wiki, alice, "Jujube")
    await wiki.login(client, "Admin")
    await _ok(wiki, client, action="rollback", title="Jujube", user="Robot")
    assert await wiki_mails(wiki) == []  # minor: not without enotifminoredits
    # Marked notified by the rollback: this edit mails nobody either.
    await wiki.edit_page("Jujube", "bad again", user="Robot")
    await wiki.db.write(set_options, alice, {"enotifminoredits": "1"}, False)
    await _seen(wiki, alice, "Jujube")
    await _ok(wiki, client, action="rollback", title="Jujube", user="Robot")
    [mail] = await wiki_mails(wiki)
    assert mail["Subject"] == "Atrium Wiki page Jujube has been changed by Admin"
    body = text_part(mail)
    assert "This is a minor edit" in body
    assert "Editor's summary: Reverted edits by" in body
    assert "To view this change, see" in body  # an edit: the diff is linked


async def test_logged_actions_skip_the_performer_and_those_who_said_no(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    admin = await confirm_address(wiki, "Admin", "admin@example.org")
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await wiki.db.write(set_options, alice, {"enotifwatchlistpages": "0"}, False)
    await wiki.edit_page("Lime", "some text")
    await _watch(wiki, alice, "Lime")
    await _watch(wiki, admin, "Lime")
    await wiki.login(client, "Admin")
    await _ok(wiki, client, action="protect", title="Lime", protections="edit=sysop")
    assert await wiki_mails(wiki) == []
