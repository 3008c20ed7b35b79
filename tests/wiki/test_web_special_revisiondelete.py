"""`Special:RevisionDelete` over HTTP: an oversighter (`suppress`, who holds `deleterevision` as
in MediaWiki's default groups) reaches it from the history's check boxes and from the log, hides
a revision's summary and author and a log entry's performer (the API's change, logged); the
current text cannot be hidden; bad input and an empty selection answer MediaWiki's "Invalid
target revision"; readers without the right, foreign posts and administrators (who may only
look) change nothing, and a suppressed revision shows them nothing."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

from atrium.wiki.changes.accounts import create_user

pytestmark = pytest.mark.anyio

URL = "/w/index.php?title=Special:RevisionDelete&action=submit"
SECRET_SUMMARY = "secret summary <b>x</b>"
NOTHING = "You have either not specified any target revision"


OVERSIGHT = "Oversighter"


def _oversighter(wiki: WikiHarness) -> None:
    wiki.db.write_sync(
        lambda conn: create_user(
            conn, OVERSIGHT, "oversight-password-1", groups=["sysop", "suppress"]
        )
    )


async def _revisions(wiki: WikiHarness, title: str, user: str = "Alice") -> tuple[int, int]:
    first = await wiki.edit_page(title, "first text", user=user, summary=SECRET_SUMMARY)
    second = await wiki.edit_page(title, "second text", user="Admin", summary="second")
    return first, second


async def _revision(wiki: WikiHarness, rev_id: int) -> dict[str, Any]:
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        answer = await wiki.api(
            admin, action="query", prop="revisions", revids=str(rev_id),
            rvprop="ids|user|comment", formatversion="2",
        )  # fmt: skip
    [page] = answer["query"]["pages"]
    [revision] = page["revisions"]
    return dict(revision)


async def test_history_selection_leads_to_the_form_and_hides(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    first, second = await _revisions(wiki, "Rd page")
    _oversighter(wiki)
    await sign_in(wiki, client, OVERSIGHT)
    history = (await client.get("/w/index.php?title=Rd_page&action=history")).text
    assert f'name="ids[{first}]"' in history
    assert 'name="revisiondelete" value="1"' in history
    assert "Change visibility of selected revisions" in history
    # The history form's button: action=historysubmit with the ticked revisions.
    form = await client.get(
        "/w/index.php",
        params={
            "title": "Rd_page", "action": "historysubmit", "type": "revision",
            f"ids[{first}]": "1", "revisiondelete": "1", "oldid": str(first),
            "diff": str(second),
        },
    )  # fmt: skip
    assert form.status_code == 200
    assert "Selected revision of" in form.text and f'data-mw-revid="{first}"' in form.text
    assert 'name="wpHideComment"' in form.text and 'name="wpHideRestricted"' in form.text
    assert "Apply to selected revision" in form.text
    assert "&lt;b&gt;x&lt;/b&gt;" in form.text and "<b>x</b>" not in form.text
    done = await client.post(
        URL,
        data={
            "type": "revision", "target": "Rd page", "ids": str(first), "wpHideComment": "1",
            "wpHideUser": "1", "wpRevDeleteReasonList": "Inappropriate comment",
            "wpReason": "cleanup", "wpEditToken": await page_token(client), "wpSubmit": "Apply",
        },
    )  # fmt: skip
    assert done.status_code == 200 and "Revision visibility updated." in done.text
    assert re.search(r'id="wpHideComment"[^>]* checked', done.text)
    assert not re.search(r'id="wpHidePrimary"[^>]* checked', done.text)
    shown = await _revision(wiki, first)
    assert shown.get("commenthidden") and shown.get("userhidden")
    # Logged, with the links back from the log line.
    log = (await client.get("/wiki/Special:Log/delete")).text
    assert "changed visibility of a revision" in log
    assert "Inappropriate comment: cleanup" in log
    assert f"type=revision&amp;ids={first}" in log and "change visibility</a>" in log
    # An administrator may look (`deletedhistory`): a "change visibility" link on the hidden
    # revision, no check boxes, and the list without the form.
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        page = (await admin.get("/w/index.php?title=Rd_page&action=history")).text
        assert "ids[" not in page and "Change visibility of selected" not in page
        assert f"ids={first}" in page and "change visibility</a>" in page
        looked = await admin.get(f"/wiki/Special:RevisionDelete?type=revision&ids={first}")
        assert "secret summary" in looked.text and "mw-revdel-form-revisions" not in looked.text
        posted = await admin.post(
            URL,
            data={"type": "revision", "ids": str(first), "wpHideComment": "0",
                  "wpEditToken": await page_token(admin), "wpSubmit": "1"},
        )  # fmt: skip
        assert posted.status_code == 200 and "updated" not in posted.text
        assert (await _revision(wiki, first)).get("commenthidden")
    # Others read the history without the hidden parts.
    async with wiki.client() as reader:
        await sign_in(wiki, reader, "Alice")
        page = (await reader.get("/w/index.php?title=Rd_page&action=history")).text
        assert "secret summary" not in page and "(edit summary removed)" in page
        assert "ids[" not in page and "Change visibility" not in page


async def test_current_text_cannot_be_hidden(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    _, second = await _revisions(wiki, "Rd current")
    _oversighter(wiki)
    await sign_in(wiki, client, OVERSIGHT)
    failed = await client.post(
        URL,
        data={
            "type": "revision", "ids": str(second), "wpHidePrimary": "1",
            "wpEditToken": await page_token(client), "wpSubmit": "1",
        },
    )  # fmt: skip
    assert failed.status_code == 200 and "Action failed" in failed.text
    assert "This is the current revision" in failed.text
    assert not (await _revision(wiki, second)).get("texthidden")


async def test_bad_input_and_empty_selection(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    first, _ = await _revisions(wiki, "Rd bad")
    _oversighter(wiki)
    await sign_in(wiki, client, OVERSIGHT)
    for query in (
        "", "?type=revision", f"?ids={first}", f"?type=nonsense&ids={first}",
        "?type=revision&ids=abc", "?type=revision&ids=999999", "?type=logging&ids=999999",
        "?type=revision&ids[x]=1", "?type=revision&ids=" + "9" * 40,
        "?type=archive&target=Nowhere&ids=20200101000000", "?type=revision&ids=%00",
    ):  # fmt: skip
        answer = await client.get("/wiki/Special:RevisionDelete" + query)
        assert answer.status_code == 200, query
        assert NOTHING in answer.text or "deletion log" in answer.text, query
    # Visibility values out of range keep the field as it is; nothing changes for "(do not
    # change)" alone, which says so.
    token = await page_token(client)
    unchanged = await client.post(
        URL,
        data={
            "type": "revision", "ids": str(first), "wpHideComment": "7", "wpHidePrimary": "-1",
            "wpHideUser": "-1", "wpEditToken": token, "wpSubmit": "1",
        },
    )  # fmt: skip
    assert unchanged.status_code == 200
    assert "already had the requested visibility settings" in unchanged.text
    # Radios past the range keep the field, as "(do not change)" does.
    kept = await client.post(
        URL,
        data={
            "type": "revision", "ids": str(first), "wpHideComment": "1", "wpHideUser": "x",
            "wpHidePrimary": "-7", "wpHideRestricted": "0", "wpEditToken": token,
            "wpSubmit": "1",
        },
    )  # fmt: skip
    assert "Revision visibility updated." in kept.text
    shown = await _revision(wiki, first)
    # A box posted as text reads as unticked (WebRequest::getInt): the author stays shown.
    assert shown.get("commenthidden") and not shown.get("userhidden")
    assert not shown.get("suppressed")


async def test_refusals_change_nothing_and_show_nothing_hidden(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    first, _ = await _revisions(wiki, "Rd refused")
    form = {"type": "revision", "ids": str(first), "wpHideComment": "1", "wpSubmit": "1"}
    anonymous = await client.get(f"/wiki/Special:RevisionDelete?type=revision&ids={first}")
    assert anonymous.status_code == 200 and "Permission error" in anonymous.text
    assert "secret summary" not in anonymous.text
    await sign_in(wiki, client, "Alice")
    posted = await client.post(URL, data={**form, "wpEditToken": await page_token(client)})
    assert posted.status_code == 200 and "Permission error" in posted.text
    assert not (await _revision(wiki, first)).get("commenthidden")
    _oversighter(wiki)
    async with wiki.client() as admin:
        await sign_in(wiki, admin, OVERSIGHT)
        for token in ("", "+\\", "nonsense"):
            forged = await admin.post(URL, data={**form, "wpEditToken": token})
            assert forged.status_code == 200 and "session hijacking" in forged.text
            assert 'name="wpHideComment"' in forged.text
        foreign = await admin.post(
            URL,
            data={**form, "wpEditToken": await page_token(admin)},
            headers={"Origin": "https://evil.example"},
        )
        assert "session hijacking" in foreign.text
    assert not (await _revision(wiki, first)).get("commenthidden")


async def test_suppressed_revision_is_out_of_an_administrators_reach(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    first, _ = await _revisions(wiki, "Rd suppressed", user="Robot")
    _oversighter(wiki)
    await sign_in(wiki, client, OVERSIGHT)
    form = await client.get(f"/wiki/Special:RevisionDelete?type=revision&ids={first}")
    assert 'name="wpHideRestricted"' in form.text
    done = await client.post(
        URL,
        data={
            "type": "revision", "ids": str(first), "wpHideComment": "1", "wpHideUser": "1",
            "wpHideRestricted": "1", "wpEditToken": await page_token(client), "wpSubmit": "1",
        },
    )  # fmt: skip
    assert "Revision visibility updated." in done.text
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        looked = await admin.get(f"/wiki/Special:RevisionDelete?type=revision&ids={first}")
        assert looked.status_code == 200 and "Permission error" in looked.text
        assert "secret summary" not in looked.text and "Robot" not in looked.text
        history = (await admin.get("/w/index.php?title=Rd_suppressed&action=history")).text
        assert "mw-history-revisiondelete-button" not in history
        posted = await admin.post(
            URL,
            data={
                "type": "revision", "ids": str(first), "wpHideComment": "0",
                "wpHideUser": "0", "wpEditToken": await page_token(admin), "wpSubmit": "1",
            },
        )  # fmt: skip
        assert "secret summary" not in posted.text and "Robot" not in posted.text
    shown = await _revision(wiki, first)
    assert shown.get("commenthidden") and shown.get("suppressed")


async def test_log_entry_performer_hidden_from_special_log(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Rd log source", "text", user="Alice")
    async with wiki.client() as api:
        await wiki.login(api, "Admin")
        moved = await wiki.post(
            api, action="move", **{"from": "Rd log source"}, to="Rd log target",
            token=await wiki.csrf(api),
        )  # fmt: skip
        assert "move" in moved, moved
    _oversighter(wiki)
    await sign_in(wiki, client, OVERSIGHT)
    log = (await client.get("/wiki/Special:Log/move")).text
    found = re.search(r'name="ids\[(\d+)\]"', log)
    assert found is not None and "Change visibility of selected log entries" in log
    log_id = found.group(1)
    form = await client.get(
        "/w/index.php",
        params={"title": "Special:RevisionDelete", "type": "logging", f"ids[{log_id}]": "1"},
    )
    assert "Selected log event:" in form.text and "Hide target and parameters" in form.text
    done = await client.post(
        URL,
        data={
            "type": "logging", "ids": log_id, "wpHideUser": "1",
            "wpEditToken": await page_token(client), "wpSubmit": "1",
        },
    )  # fmt: skip
    assert "Log visibility set." in done.text
    async with wiki.client() as reader:
        shown = (await reader.get("/wiki/Special:Log/move")).text
        line = shown.split(f'data-mw-logid="{log_id}"', 1)[1].split("</li>", 1)[0]
        assert "Admin" not in line and "(username removed)" in line
