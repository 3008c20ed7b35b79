"""action=revisiondelete: hiding a revision's text, summary and author (and a log entry's
parts), suppression, the per-item statuses, the log entries, and every refusal with MediaWiki
1.39's error code."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.changes.accounts import create_bot_password, create_user

pytestmark = pytest.mark.anyio

OVERSIGHT = ("Oversightrd", "oversight-password-1")


async def _oversight(wiki: WikiHarness) -> httpx.AsyncClient:
    """A member of `suppress` (deleterevision, suppressrevision) and `sysop`."""
    wiki.db.write_sync(
        lambda conn: create_user(conn, OVERSIGHT[0], OVERSIGHT[1], groups=["sysop", "suppress"])
    )
    client = wiki.client()
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    done = await wiki.post(
        client,
        action="login",
        lgname=OVERSIGHT[0],
        lgpassword=OVERSIGHT[1],
        lgtoken=token,
    )
    assert done["login"]["result"] == "Success", done
    return client


async def _revdel(wiki: WikiHarness, client: httpx.AsyncClient, **params: Any) -> Any:
    params.setdefault("type", "revision")
    params.setdefault("token", await wiki.csrf(client))
    return await wiki.post(client, action="revisiondelete", **params)


async def _two_revisions(wiki: WikiHarness) -> tuple[int, int]:
    first = await wiki.edit_page("Rdtest", "first text", summary="first sum")
    second = await wiki.edit_page("Rdtest", "second text", summary="second sum")
    return first, second


async def test_hiding_every_field_answers_each_item_and_logs_it(wiki: WikiHarness) -> None:
    first, _ = await _two_revisions(wiki)
    oversight = await _oversight(wiki)
    done = await _revdel(
        wiki, oversight, target="Rdtest", ids=str(first), hide="content|comment|user", reason="why"
    )
    [item] = done["revisiondelete"]["items"]
    timestamp = item.pop("timestamp")
    assert timestamp.endswith("Z")
    assert done == {
        "revisiondelete": {
            "status": "Success",
            "target": "Rdtest",
            "items": [
                {
                    "status": "Success",
                    "id": first,
                    "userhidden": "",
                    "commenthidden": "",
                    "texthidden": "",
                    "userid": item["userid"],
                    "user": "Admin",
                    "comment": "first sum",
                }
            ],
        }
    }
    log = await wiki.api(
        oversight, action="query", list="logevents", letype="delete", leprop="type|details|comment"
    )
    assert log["query"]["logevents"][0] == {
        "params": {
            "type": "revision",
            "ids": [first],
            "old": {"bitmask": 0},
            "new": {"bitmask": 7, "content": "", "comment": "", "user": ""},
        },
        "type": "delete",
        "action": "revision",
        "comment": "why",
    }
    fv2 = await wiki.api(
        oversight,
        action="query",
        list="logevents",
        letype="delete",
        leprop="details",
        formatversion="2",
    )
    assert fv2["query"]["logevents"][0]["params"]["new"] == {
        "bitmask": 7,
        "content": True,
        "comment": True,
        "user": True,
        "restricted": False,
    }
    changes = await wiki.api(
        oversight, action="query", list="recentchanges", rctype="log", rcprop="loginfo|title"
    )
    assert changes["query"]["recentchanges"][0]["logtype"] == "delete"
    assert changes["query"]["recentchanges"][0]["logaction"] == "revision"
    # Administrators (deletedhistory, deletedtext) see what is hidden, marked as hidden.
    admin = wiki.client()
    await wiki.login(admin, "Admin")
    revs = await wiki.api(
        admin, action="query", revids=str(first), prop="revisions", rvprop="user|comment|content"
    )
    [page] = revs["query"]["pages"].values()
    assert page["revisions"][0]["user"] == "Admin"
    assert page["revisions"][0]["comment"] == "first sum"
    assert page["revisions"][0]["texthidden"] == ""
    assert page["revisions"][0]["*"] == "first text"
    await admin.aclose()
    await oversight.aclose()


async def test_item_statuses_for_no_change_current_and_missing(wiki: WikiHarness) -> None:
    first, second = await _two_revisions(wiki)
    oversight = await _oversight(wiki)
    await _revdel(wiki, oversight, ids=str(first), hide="content")
    again = await _revdel(wiki, oversight, ids=str(first), hide="content")
    [item] = again["revisiondelete"]["items"]
    assert item["status"] == "Success"
    assert item["errors"] == []
    [warning] = item["warnings"]
    assert warning["message"] == warning["code"] == "revdelete-no-change"
    assert warning["type"] == "warning"
    assert len(warning["params"]) == 2
    current = await _revdel(wiki, oversight, ids=str(second), hide="content")
    [item] = current["revisiondelete"]["items"]
    assert item["status"] == "Success"
    assert [e["code"] for e in item["errors"]] == ["revdelete-hide-current"]
    assert item["warnings"] == []
    assert "texthidden" not in item
    # The current revision's summary and author may be hidden.
    summary = await _revdel(wiki, oversight, ids=str(second), hide="comment")
    assert "errors" not in summary["revisiondelete"]["items"][0]
    mixed = await _revdel(
        wiki, oversight, target="Rdtest", ids=f"{first}|99999|abc", hide="comment"
    )
    items = mixed["revisiondelete"]["items"]
    assert [i["id"] for i in items] == [first, 99999, "abc"]
    assert [i["status"] for i in items] == ["Success", "Fail", "Fail"]
    assert items[1]["errors"] == [
        {
            "message": "revdelete-modify-missing",
            "params": [99999],
            "code": "revdelete-modify-missing",
            "type": "error",
        }
    ]
    plain = await _revdel(
        wiki,
        oversight,
        target="Rdtest",
        ids="99998",
        hide="content",
        errorformat="plaintext",
        formatversion="2",
    )
    assert plain["revisiondelete"]["items"] == [
        {
            "status": "Fail",
            "errors": [
                {
                    "code": "revdelete-modify-missing",
                    "text": "Error modifying item ID 99998: It is missing from the database!",
                }
            ],
            "id": 99998,
        }
    ]
    await oversight.aclose()


async def test_show_again_and_suppression(wiki: WikiHarness) -> None:
    first, _ = await _two_revisions(wiki)
    oversight = await _oversight(wiki)
    admin = wiki.client()
    await wiki.login(admin, "Admin")
    done = await _revdel(wiki, oversight, ids=str(first), hide="user", suppress="yes")
    assert done["revisiondelete"]["items"][0]["status"] == "Success"
    # Suppressed: administrators no longer see the name; the suppression log has the entry.
    revs = await wiki.api(admin, action="query", revids=str(first), prop="revisions", rvprop="user")
    [page] = revs["query"]["pages"].values()
    assert page["revisions"][0] == {"userhidden": "", "suppressed": ""}
    log = await wiki.api(oversight, action="query", list="logevents", leprop="type|details")
    assert log["query"]["logevents"][0]["type"] == "suppress"
    assert log["query"]["logevents"][0]["params"]["new"] == {
        "bitmask": 12,
        "user": "",
        "restricted": "",
    }
    feed = await wiki.api(admin, action="query", list="recentchanges", rctype="log")
    assert feed["query"]["recentchanges"] == [], "the suppression log stays out of the feed"
    # A change an administrator cannot make: they lack deleterevision.
    refused = await _revdel(wiki, admin, ids=str(first), show="user")
    assert refused["error"]["code"] == "permissiondenied"
    shown = await _revdel(wiki, oversight, ids=str(first), show="user", suppress="no")
    assert shown["revisiondelete"]["items"][0]["status"] == "Success"
    revs = await wiki.api(admin, action="query", revids=str(first), prop="revisions", rvprop="user")
    [page] = revs["query"]["pages"].values()
    assert page["revisions"][0] == {"user": "Admin"}
    await admin.aclose()
    await oversight.aclose()


async def test_log_entries_can_be_hidden(wiki: WikiHarness) -> None:
    first, _ = await _two_revisions(wiki)
    oversight = await _oversight(wiki)
    await _revdel(wiki, oversight, ids=str(first), hide="comment", reason="first reason")
    log = await wiki.api(oversight, action="query", list="logevents", letype="delete")
    log_id = log["query"]["logevents"][0]["logid"]
    done = await _revdel(
        wiki, oversight, type="logging", ids=str(log_id), hide="content|comment|user"
    )
    result = done["revisiondelete"]
    assert result["target"] == "Special:Log/delete"
    assert result["items"][0]["id"] == log_id
    assert result["items"][0]["type"] == "delete"
    assert result["items"][0]["actionhidden"] == ""
    anonymous = wiki.client()
    seen = await wiki.api(
        anonymous, action="query", list="logevents", letype="delete", leprop="ids|user|comment"
    )
    entry = next(e for e in seen["query"]["logevents"] if e["logid"] == log_id)
    assert "user" not in entry and "comment" not in entry
    assert entry["userhidden"] == entry["commenthidden"] == ""
    missing = await _revdel(wiki, oversight, type="logging", ids="99999", hide="content")
    assert missing["revisiondelete"]["target"] == "Special:Log"
    assert missing["revisiondelete"]["items"][0]["status"] == "Fail"
    await anonymous.aclose()
    await oversight.aclose()


async def test_bad_inputs_answer_mediawikis_codes(wiki: WikiHarness) -> None:
    first, _ = await _two_revisions(wiki)
    oversight = await _oversight(wiki)
    alice = wiki.client()
    await wiki.login(alice, "Alice")
    cases: list[tuple[httpx.AsyncClient, dict[str, str], str]] = [
        (alice, {"ids": str(first), "hide": "content"}, "permissiondenied"),
        (alice, {"type": "logging", "ids": "1", "hide": "content"}, "permissiondenied"),
        (oversight, {"ids": "", "hide": "content"}, "paramempty_ids"),
        (oversight, {"ids": str(first), "hide": "comment", "show": "comment"}, "badparams"),
        (oversight, {"ids": str(first)}, "badparams"),
        (oversight, {"ids": "99999", "hide": "comment"}, "needtarget"),
        (oversight, {"ids": "99999", "target": "<bad>", "hide": "comment"}, "needtarget"),
        (oversight, {"type": "bogus", "ids": str(first), "hide": "content"}, "badvalue"),
        (oversight, {"ids": str(first), "hide": "content", "tags": "nosuchtag"}, "badtags"),
        (oversight, {"ids": str(first), "hide": "content", "token": "bad+\\"}, "badtoken"),
        (oversight, {"hide": "content"}, "missingparam"),
    ]
    for client, params, code in cases:
        answer = await _revdel(wiki, client, **params)
        assert answer.get("error", {}).get("code") == code, (params, answer)
    denied = await _revdel(wiki, alice, ids=str(first), hide="content")
    assert denied["error"]["info"] == "You don't have permission to delete revisions."
    denied = await _revdel(wiki, alice, type="logging", ids="1", hide="content")
    assert denied["error"]["info"] == "You don't have permission to delete log entries."
    ids = await _revdel(wiki, oversight, ids="", hide="content")
    assert ids["error"]["info"] == 'The parameter "ids" may not be empty.'
    got = await oversight.get(
        "/w/api.php",
        params={
            "action": "revisiondelete",
            "type": "revision",
            "ids": str(first),
            "hide": "content",
            "token": await wiki.csrf(oversight),
            "format": "json",
        },
    )
    assert got.json()["error"]["code"] == "mustpostparams"
    # Nothing was hidden by any of them.
    revs = await wiki.api(alice, action="query", revids=str(first), prop="revisions")
    [page] = revs["query"]["pages"].values()
    assert "texthidden" not in page["revisions"][0]
    await alice.aclose()
    await oversight.aclose()


async def test_paraminfo_comes_from_the_declaration(wiki: WikiHarness) -> None:
    client = wiki.client()
    info = await wiki.api(client, action="paraminfo", modules="revisiondelete", formatversion="2")
    [module] = info["paraminfo"]["modules"]
    assert module["classname"] == "ApiRevisionDelete"
    assert module["mustbeposted"] is True
    params = {p["name"]: p for p in module["parameters"]}
    assert list(params) == [
        "type",
        "target",
        "ids",
        "hide",
        "show",
        "suppress",
        "reason",
        "tags",
        "token",
    ]
    assert params["type"]["type"] == ["archive", "filearchive", "logging", "oldimage", "revision"]
    assert params["hide"]["type"] == ["comment", "content", "user"]
    assert params["suppress"]["default"] == "nochange"
    assert params["ids"]["required"] is True and params["ids"]["multi"] is True
    await client.aclose()


async def test_a_deleted_pages_revisions_are_found_by_id(wiki: WikiHarness) -> None:
    """RevDelRevisionList also reads the archive: a deleted page's revision, by its id, under
    the target the request names (the revision itself no longer names a page)."""
    first, _ = await _two_revisions(wiki)
    oversight = await _oversight(wiki)
    token = await wiki.csrf(oversight)
    deleted = await wiki.post(oversight, action="delete", title="Rdtest", token=token)
    assert "delete" in deleted, deleted
    no_target = await _revdel(wiki, oversight, ids=str(first), hide="comment")
    assert no_target["error"]["code"] == "needtarget"
    done = await _revdel(wiki, oversight, target="Rdtest", ids=str(first), hide="comment")
    [item] = done["revisiondelete"]["items"]
    assert (item["status"], item["id"], item["commenthidden"]) == ("Success", first, "")
    admin = wiki.client()
    await wiki.login(admin, "Admin")
    archived = await wiki.api(
        admin, action="query", prop="deletedrevisions", titles="Rdtest", drvprop="ids|comment"
    )
    [page] = archived["query"]["pages"].values()
    hidden = next(r for r in page["deletedrevisions"] if r["revid"] == first)
    assert hidden == {"revid": first, "parentid": 0, "commenthidden": "", "comment": "first sum"}
    await admin.aclose()
    await oversight.aclose()


async def test_tags_go_on_the_log_entry(wiki: WikiHarness) -> None:
    first, _ = await _two_revisions(wiki)
    admin = wiki.client()
    await wiki.login(admin, "Admin")
    token = await wiki.csrf(admin)
    made = await wiki.post(
        admin, action="managetags", operation="create", tag="revdel-tag", token=token
    )
    assert made["managetags"]["tag"] == "revdel-tag", made
    oversight = await _oversight(wiki)
    done = await _revdel(wiki, oversight, ids=str(first), hide="comment", tags="revdel-tag")
    assert done["revisiondelete"]["items"][0]["status"] == "Success", done
    log = await wiki.api(admin, action="query", list="logevents", letype="delete", leprop="tags")
    assert log["query"]["logevents"][0]["tags"] == ["revdel-tag"]
    changes = await wiki.api(
        admin, action="query", list="recentchanges", rctype="log", rcprop="tags"
    )
    assert changes["query"]["recentchanges"][0]["tags"] == ["revdel-tag"]
    await admin.aclose()
    await oversight.aclose()


async def test_without_suppressrevision_suppressed_items_are_out_of_reach(
    wiki: WikiHarness,
) -> None:
    """A bot password granted `delete` only (deleterevision, deletedhistory, not
    suppressrevision): suppressing is refused, and a suppressed item cannot be changed."""
    first, _ = await _two_revisions(wiki)
    oversight = await _oversight(wiki)
    suppressed = await _revdel(wiki, oversight, ids=str(first), hide="comment", suppress="yes")
    assert suppressed["revisiondelete"]["items"][0]["status"] == "Success"
    account = await wiki._user_id(OVERSIGHT[0])
    bot_password = wiki.db.write_sync(
        lambda conn: create_bot_password(conn, account, "deleter", ["basic", "delete"])
    )
    deleter = wiki.client()
    token = (await wiki.api(deleter, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    done = await wiki.post(
        deleter,
        action="login",
        lgname=f"{OVERSIGHT[0]}@deleter",
        lgpassword=bot_password,
        lgtoken=token,
    )
    assert done["login"]["result"] == "Success", done
    refused = await _revdel(wiki, deleter, ids=str(first), hide="user", suppress="yes")
    assert refused["error"]["code"] == "permissiondenied"
    assert refused["error"]["info"] == (
        "You don't have permission to review and undelete hidden revisions."
    )
    untouchable = await _revdel(wiki, deleter, ids=str(first), show="comment", suppress="no")
    [item] = untouchable["revisiondelete"]["items"]
    assert item["status"] == "Success"
    assert [e["code"] for e in item["errors"]] == ["revdelete-show-no-access"]
    assert "comment" not in item, "a suppressed summary stays out of the answer"
    modify = await _revdel(wiki, deleter, ids=str(first), hide="user")
    [item] = modify["revisiondelete"]["items"]
    assert [e["code"] for e in item["errors"]] == ["revdelete-modify-no-access"]
    revs = await wiki.api(oversight, action="query", revids=str(first), prop="revisions")
    [page] = revs["query"]["pages"].values()
    assert "userhidden" not in page["revisions"][0]
    await deleter.aclose()
    await oversight.aclose()


async def test_archive_items_are_a_deleted_pages_revisions_by_timestamp(
    wiki: WikiHarness,
) -> None:
    """`type=archive` (RevDelArchiveList): the ids are the deleted revisions' timestamps."""
    first, _ = await _two_revisions(wiki)
    oversight = await _oversight(wiki)
    token = await wiki.csrf(oversight)
    await wiki.post(oversight, action="delete", title="Rdtest", token=token)
    archived = await wiki.api(
        oversight, action="query", prop="deletedrevisions", titles="Rdtest", drvprop="ids|timestamp"
    )
    [page] = archived["query"]["pages"].values()
    stamp = next(r["timestamp"] for r in page["deletedrevisions"] if r["revid"] == first)
    ts14 = "".join(ch for ch in stamp if ch.isdigit())
    missing_target = await _revdel(wiki, oversight, type="archive", ids=ts14, hide="user")
    assert missing_target["error"]["code"] == "needtarget"
    done = await _revdel(
        wiki, oversight, type="archive", target="Rdtest", ids=f"{ts14}|20010101000000", hide="user"
    )
    items = done["revisiondelete"]["items"]
    assert [(i["status"], i["id"]) for i in items] == [
        ("Success", int(ts14)),
        ("Fail", 20010101000000),
    ]
    assert items[0]["userhidden"] == ""
    log = await wiki.api(
        oversight, action="query", list="logevents", letype="delete", leprop="details"
    )
    assert log["query"]["logevents"][0]["params"]["type"] == "archive"
    # Each revision changed is logged by its timestamp (twice when both were saved in one second).
    assert set(log["query"]["logevents"][0]["params"]["ids"]) == {ts14}
    anonymous = wiki.client()
    await wiki.login(anonymous, "Admin")
    shown = await wiki.api(
        anonymous, action="query", prop="deletedrevisions", titles="Rdtest", drvprop="ids|user"
    )
    [page] = shown["query"]["pages"].values()
    hidden = next(r for r in page["deletedrevisions"] if r["revid"] == first)
    assert hidden["userhidden"] == ""
    await anonymous.aclose()
    await oversight.aclose()
