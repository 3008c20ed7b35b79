"""Watchlist and user-talk mail (enotifwatchlistpages, enotifusertalkpages) in MediaWiki's
words: once per change until the watcher looks again, never to the editor, only to confirmed
addresses, minor edits only to those who asked."""

from __future__ import annotations

import httpx
import pytest
from tests.mail_server import text_part
from tests.wiki.conftest import WikiHarness
from tests.wiki.mailboxes import confirm_address, wiki_mails

from atrium.wiki.changes.accounts import set_options
from atrium.wiki.changes.watching import mark_seen, set_watch
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio


async def _edit(
    wiki: WikiHarness, client: httpx.AsyncClient, title: str, text: str, **more: str
) -> None:
    token = await wiki.csrf(client)
    result = await wiki.post(client, action="edit", title=title, text=text, token=token, **more)
    assert result["edit"]["result"] == "Success", result


async def test_a_watcher_is_mailed_once_until_they_look(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await wiki.login(client, "Admin")
    await _edit(wiki, client, "Apple", "first")
    await wiki.db.write(set_watch, alice, wiki.site.parser.parse("Apple"), True)
    await _edit(wiki, client, "Apple", "second", summary="fruit")
    [mail] = await wiki_mails(wiki)
    assert mail["To"] == "Alice <alice@example.org>"
    assert mail["Subject"] == "Atrium Wiki page Apple has been changed by Admin"
    body = text_part(mail)
    assert body.startswith("Dear Alice,")
    assert "The Atrium Wiki page Apple has been changed on" in body
    assert "Editor's summary: fruit" in body
    assert "To view this change, see http://127.0.0.1:8080/w/index.php?title=Apple&diff=" in body
    assert "title=Apple&action=unwatch" in body
    await _edit(wiki, client, "Apple", "third")
    assert len(await wiki_mails(wiki)) == 1  # not until Alice looks
    await wiki.db.write(mark_seen, alice, wiki.site.parser.parse("Apple"))
    await _edit(wiki, client, "Apple", "fourth")
    assert len(await wiki_mails(wiki)) == 2


async def test_the_talk_page_owner_is_mailed_and_may_say_no(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await wiki.login(client, "Admin")
    await _edit(wiki, client, "User talk:Alice", "Hello Alice")
    [mail] = await wiki_mails(wiki)
    assert mail["Subject"] == "Atrium Wiki page User talk:Alice has been created by Admin"
    await wiki.db.write(set_options, alice, {"enotifusertalkpages": "0"}, False)
    await _edit(wiki, client, "User talk:Alice", "Hello again")
    assert len(await wiki_mails(wiki)) == 1


async def test_nobody_unconfirmed_no_editor_and_minor_edits_only_on_request(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    admin = await confirm_address(wiki, "Admin", "admin@example.org")
    robot = await wiki.db.read(account_by_name, "Robot")  # no address at all
    await wiki.login(client, "Admin")
    await _edit(wiki, client, "Banana", "first")
    page = wiki.site.parser.parse("Banana")
    await wiki.db.write(set_watch, admin, page, True)
    await wiki.db.write(set_watch, robot.id, page, True)
    await _edit(wiki, client, "Banana", "second")  # the editor is the only confirmed watcher
    assert await wiki_mails(wiki) == []
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await wiki.db.write(set_watch, alice, page, True)
    await _edit(wiki, client, "Banana", "minor change", minor="1")
    assert await wiki_mails(wiki) == []
    await wiki.db.write(set_options, alice, {"enotifminoredits": "1"}, False)
    await wiki.db.write(mark_seen, alice, page)  # the minor edit marked the page changed
    await _edit(wiki, client, "Banana", "another minor change", minor="1")
    [mail] = await wiki_mails(wiki)
    assert "This is a minor edit" in text_part(mail)


async def _watched_page(
    wiki: WikiHarness, client: httpx.AsyncClient, title: str, *watchers: int
) -> None:
    await _edit(wiki, client, title, "some text")
    for user_id in watchers:
        await wiki.db.write(set_watch, user_id, wiki.site.parser.parse(title), True)


async def test_deletion_and_restoration_mail_the_watchers(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await wiki.login(client, "Admin")
    await _watched_page(wiki, client, "Cherry", alice)
    token = await wiki.csrf(client)
    result = await wiki.post(client, action="delete", title="Cherry", reason="spam", token=token)
    assert "delete" in result, result
    [mail] = await wiki_mails(wiki)
    assert mail["To"] == "Alice <alice@example.org>"
    assert mail["Subject"] == "Atrium Wiki page Cherry has been deleted by Admin"
    body = text_part(mail)
    assert "The Atrium Wiki page Cherry has been deleted on" in body
    assert (
        "has been deleted on" in body and "by Admin, see http://127.0.0.1:8080/wiki/Cherry." in body
    )
    assert "Editor's summary: spam" in body
    assert "To view this change" not in body  # a log entry has no diff
    await wiki.db.write(mark_seen, alice, wiki.site.parser.parse("Cherry"))
    result = await wiki.post(
        client, action="undelete", title="Cherry", reason="not spam", token=token
    )
    assert "undelete" in result, result
    mails = await wiki_mails(wiki)
    assert len(mails) == 2
    assert mails[1]["Subject"] == "Atrium Wiki page Cherry has been undeleted by Admin"
    assert "has been undeleted on" in text_part(mails[1])


async def test_a_move_mails_the_watchers_of_the_old_title(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await wiki.login(client, "Admin")
    await _watched_page(wiki, client, "Damson", alice)
    token = await wiki.csrf(client)
    result = await wiki.post(
        client, action="move", **{"from": "Damson"}, to="Plum", reason="rename", token=token
    )
    assert "move" in result, result
    [mail] = await wiki_mails(wiki)
    assert mail["Subject"] == "Atrium Wiki page Damson has been moved by Admin"
    assert "The Atrium Wiki page Damson has been moved on" in text_part(mail)


async def test_logged_actions_respect_the_options_and_never_mail_the_performer(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    admin = await confirm_address(wiki, "Admin", "admin@example.org")
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await wiki.db.write(set_options, alice, {"enotifwatchlistpages": "0"}, False)
    await wiki.login(client, "Admin")
    await _watched_page(wiki, client, "Elder", alice, admin)
    token = await wiki.csrf(client)
    await wiki.post(client, action="delete", title="Elder", token=token)
    assert await wiki_mails(wiki) == []


async def test_a_hostile_reason_stays_in_the_body(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    alice = await confirm_address(wiki, "Alice", "alice@example.org")
    await wiki.login(client, "Admin")
    await _watched_page(wiki, client, "Fig", alice)
    token = await wiki.csrf(client)
    reason = 'x\r\nBcc: victim@example.org\r\n"><img src=x onerror=alert(1)>'
    await wiki.post(client, action="delete", title="Fig", reason=reason, token=token)
    [mail] = await wiki_mails(wiki)
    assert mail["Bcc"] is None
    assert [a.addr_spec for a in mail["To"].addresses] == ["alice@example.org"]
    assert "victim@example.org" not in mail["Subject"]
