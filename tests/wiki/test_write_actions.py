"""Write actions: delete/undelete, move, protect, block/unblock, watch, managetags/tag,
userrights, rollback, patrol, purge, upload with stash. Expected values recorded from MediaWiki
1.39 (127.0.0.1:8181) where the reference wiki allows the action."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness

from atrium.wiki import schema

pytestmark = pytest.mark.anyio

GIF = (
    b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,"
    b"\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
)


async def _admin(wiki: WikiHarness, client: httpx.AsyncClient) -> str:
    await wiki.login(client, "Admin")
    return await wiki.csrf(client)


async def _rows(wiki: WikiHarness, table: sa.Table, *where: Any) -> list[Any]:
    return list(await wiki.db.read(lambda conn: conn.all(sa.select(table).where(*where))))


async def _logs(wiki: WikiHarness, log_type: str) -> list[Any]:
    lg = schema.logging
    return list(
        await wiki.db.read(
            lambda conn: conn.all(
                sa.select(lg).where(lg.c.log_type == log_type).order_by(lg.c.log_id)
            )
        )
    )


async def test_delete_and_undelete(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    token = await _admin(wiki, client)
    await wiki.post(client, action="edit", title="Doomed", text="short text here", token=token)
    await wiki.post(client, action="edit", title="Doomed", text="second text", token=token)
    done = await wiki.post(client, action="delete", title="Doomed", token=token)
    assert done["delete"]["title"] == "Doomed"
    assert done["delete"]["reason"] == (
        'content was: "second text", and the only contributor was '
        '"[[Special:Contributions/Admin|Admin]]" ([[User talk:Admin|talk]])'
    )
    again = await wiki.post(client, action="delete", title="Doomed", token=token)
    assert again["error"]["code"] == "missingtitle"
    assert len(await _rows(wiki, schema.archive, schema.archive.c.ar_title == "Doomed")) == 2
    info = await wiki.api(client, action="query", titles="Doomed")
    assert "missing" in info["query"]["pages"]["-1"]
    log = (await _logs(wiki, "delete"))[-1]
    assert (log["log_action"], log["log_id"]) == ("delete", done["delete"]["logid"])
    rc = await _rows(wiki, schema.recentchanges, schema.recentchanges.c.rc_title == "Doomed")
    assert [r["rc_type"] for r in rc] == [3]  # the edits' rows go, the log row stays
    restored = await wiki.post(
        client, action="undelete", title="Doomed", reason="back", token=token
    )
    assert restored == {
        "undelete": {"title": "Doomed", "revisions": 2, "fileversions": 0, "reason": "back"}
    }
    page = await wiki.api(
        client,
        action="query",
        titles="Doomed",
        prop="revisions",
        rvprop="content",
        rvslots="main",
        formatversion=2,
    )
    assert page["query"]["pages"][0]["revisions"][0]["slots"]["main"]["content"] == "second text"
    none = await wiki.post(client, action="undelete", title="Never there", token=token)
    assert none["error"]["code"] == "cantundelete"
    restore_log = (await _logs(wiki, "delete"))[-1]
    assert restore_log["log_action"] == "restore"


async def test_delete_needs_rights(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Keep me", "text")
    await wiki.login(client, "Alice")
    token = await wiki.csrf(client)
    refused = await wiki.post(client, action="delete", title="Keep me", token=token)
    assert refused["error"]["code"] == "permissiondenied"
    assert refused["error"]["info"] == (
        "The action you have requested is limited to users in the group: "
        "[[Project:Administrators|Administrators]]."
    ).replace("Project", wiki.site.namespaces.by_id[4].name)
    bad = await wiki.post(client, action="delete", title="Keep me", token="bogus+\\")
    assert bad["error"]["code"] == "badtoken"


async def test_move_with_talk_and_redirect(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    token = await _admin(wiki, client)
    await wiki.post(client, action="edit", title="Probe mv 1", text="to move", token=token)
    await wiki.post(client, action="edit", title="Talk:Probe mv 1", text="talk", token=token)
    moved = await wiki.post(
        client, action="move", **{"from": "Probe mv 1"}, to="Probe mv 2", reason="r",
        movetalk="1", token=token,
    )  # fmt: skip
    assert moved == {
        "move": {
            "from": "Probe mv 1",
            "to": "Probe mv 2",
            "reason": "r",
            "redirectcreated": "",
            "talkfrom": "Talk:Probe mv 1",
            "talkto": "Talk:Probe mv 2",
        }
    }
    same = await wiki.post(
        client, action="move", **{"from": "Probe mv 2"}, to="Probe mv 2", token=token
    )
    assert same["error"]["code"] == "selfmove"
    await wiki.edit_page("Occupied", "x")
    taken = await wiki.post(
        client, action="move", **{"from": "Probe mv 2"}, to="Occupied", token=token
    )
    assert taken["error"]["code"] == "articleexists"
    # Moving back over the redirect the move left (a single revision pointing back) works.
    back = await wiki.post(
        client, action="move", **{"from": "Probe mv 2"}, to="Probe mv 1", token=token
    )
    assert back["move"]["moveoverredirect"] == ""
    query = await wiki.api(
        client, action="query", titles="Probe mv 2", redirects="1", formatversion=2
    )
    assert query["query"]["redirects"] == [{"from": "Probe mv 2", "to": "Probe mv 1"}]
    logs = await _logs(wiki, "move")
    assert [r["log_action"] for r in logs] == ["move", "move", "move_redir"]
    hist = await wiki.api(
        client,
        action="query",
        titles="Probe mv 1",
        prop="revisions",
        rvlimit=5,
        rvprop="comment",
        formatversion=2,
    )
    comments = [r["comment"] for r in hist["query"]["pages"][0]["revisions"]]
    assert comments[0] == "Admin moved page [[Probe mv 2]] to [[Probe mv 1]] over redirect"
    assert comments[1] == "Admin moved page [[Probe mv 1]] to [[Probe mv 2]]: r"


async def test_protect_and_refusals(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    token = await _admin(wiki, client)
    await wiki.edit_page("Guarded", "text")
    done = await wiki.post(
        client, action="protect", title="Guarded", protections="edit=sysop|move=sysop",
        expiry="1 week|infinite", reason="pr", cascade="1", token=token,
    )  # fmt: skip
    result = done["protect"]
    assert (result["title"], result["reason"], result["cascade"]) == ("Guarded", "pr", "")
    assert result["protections"][1] == {"move": "sysop", "expiry": "infinite"}
    assert result["protections"][0]["edit"] == "sysop"
    created = await wiki.post(
        client, action="protect", title="Not yet", protections="create=sysop", token=token
    )
    assert created["protect"]["protections"] == [{"create": "sysop", "expiry": "infinite"}]
    for protections, expiry, code in (
        ("edit=foo", "infinite", "protect-invalidlevel"),
        ("foo=sysop", "infinite", "protect-invalidaction"),
        ("edit=sysop|move=sysop", "1 day|2 days|3 days", "toofewexpiries"),
        ("create=sysop", "infinite", "create-titleexists"),
    ):
        refused = await wiki.post(
            client,
            action="protect",
            title="Guarded",
            protections=protections,
            expiry=expiry,
            token=token,
        )
        assert refused["error"]["code"] == code, (protections, refused)
    log = (await _logs(wiki, "protect"))[0]
    assert log["log_action"] == "protect"
    async with wiki.client() as alice:
        await wiki.login(alice, "Alice")
        alice_token = await wiki.csrf(alice)
        edit = await wiki.post(
            alice, action="edit", title="Guarded", text="vandal", token=alice_token
        )
        assert edit["error"]["code"] == "protectedpage"
        create = await wiki.post(alice, action="edit", title="Not yet", text="x", token=alice_token)
        assert create["error"]["code"] == "protectedpage"
    unprotect = await wiki.post(
        client, action="protect", title="Guarded", protections="edit=all|move=all", token=token
    )
    assert "error" not in unprotect
    assert (await _logs(wiki, "protect"))[-1]["log_action"] == "unprotect"


async def test_block_user_partial_and_range(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    token = await _admin(wiki, client)
    await wiki.edit_page("Apple", "apple")
    done = await wiki.post(
        client, action="block", user="Alice", expiry="1 day", reason="spam", nocreate="1",
        autoblock="1", token=token,
    )  # fmt: skip
    block = done["block"]
    assert (block["user"], block["reason"], block["nocreate"], block["autoblock"]) == (
        "Alice",
        "spam",
        "",
        "",
    )
    assert block["pagerestrictions"] is None and block["namespacerestrictions"] is None
    again = await wiki.post(client, action="block", user="Alice", token=token)
    assert again["error"] == {
        **again["error"],
        "code": "alreadyblocked",
        "info": '"Alice" is already blocked.',
    }
    log = (await _logs(wiki, "block"))[-1]
    params = json.loads(log["log_params"])
    assert params["duration"] == "1 day" and params["flags"] == ["nocreate", "nousertalk"]
    async with wiki.client() as alice:
        await wiki.login(alice, "Alice")
        alice_token = await wiki.csrf(alice)
        refused = await wiki.post(
            alice, action="edit", title="Apple", appendtext="x", token=alice_token
        )
        assert refused["error"]["code"] == "blocked"
        assert refused["error"]["info"] == "You have been blocked from editing."
        info = refused["error"]["blockinfo"]
        assert (info["blockid"], info["blockedby"], info["blockreason"]) == (
            block["id"],
            "Admin",
            "spam",
        )
        assert "blockpartial" not in info and "blockexpiryformatted" in info
        unblocked = await wiki.post(
            client, action="unblock", user="Alice", reason="ok", token=token
        )
        assert unblocked["unblock"]["user"] == "Alice" and unblocked["unblock"]["reason"] == "ok"
        missing = await wiki.post(client, action="unblock", user="Alice", token=token)
        assert missing["error"]["code"] == "cantunblock"
        partial = await wiki.post(
            client, action="block", user="Alice", partial="1", allowusertalk="1",
            pagerestrictions="Apple", namespacerestrictions="1|4", reason="partial", token=token,
        )  # fmt: skip
        assert partial["block"]["pagerestrictions"] == ["Apple"]
        assert partial["block"]["namespacerestrictions"] == [1, 4]
        page = await wiki.post(
            alice, action="edit", title="Apple", appendtext="x", token=alice_token, formatversion=2
        )
        assert page["error"]["info"] == "You have been blocked from editing this page."
        assert page["error"]["blockinfo"]["blockpartial"] is True
        assert page["error"]["blockinfo"]["blockexpiry"] == "infinite"
        talk = await wiki.post(
            alice, action="edit", title="Talk:Zzz", appendtext="x", token=alice_token
        )
        assert talk["error"]["code"] == "blocked"
        free = await wiki.post(
            alice, action="edit", title="Elsewhere", text="fine", token=alice_token
        )
        assert free["edit"]["result"] == "Success"
        denied = await wiki.post(alice, action="block", user="Admin", token=alice_token)
        assert denied["error"]["code"] == "permissiondenied"
    need_talk = await wiki.post(
        client, action="block", user="Robot", partial="1", pagerestrictions="Apple", token=token
    )
    assert need_talk["error"]["code"] == "ipb-prevent-user-talk-edit"
    cidr = await wiki.post(
        client, action="block", user="127.0.0.0/24", anononly="1", expiry="infinite", token=token
    )
    assert cidr["block"]["user"] == "127.0.0.0/24" and cidr["block"]["expiry"] == "infinite"
    async with wiki.client() as anon_client:
        anon = await wiki.post(anon_client, action="edit", title="Anon", text="x", token="+\\")
    assert anon["error"]["code"] == "blocked"
    assert anon["error"]["blockinfo"]["blockexpiry"] == "infinite"
    for expiry, code in (("bogus", "invalidexpiry"), ("2001-01-01T00:00:00Z", "ipb_expiry_old")):
        bad = await wiki.post(client, action="block", user="Robot", expiry=expiry, token=token)
        assert bad["error"]["code"] == code
    nobody = await wiki.post(client, action="block", user="Nosuchuser", token=token)
    assert nobody["error"]["code"] == "nosuchuser"


async def test_watch_and_edit_watchlist(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Alice")
    data = await wiki.api(client, action="query", meta="tokens", type="watch|csrf")
    watch_token = data["query"]["tokens"]["watchtoken"]
    await wiki.edit_page("Apple", "apple")
    done = await wiki.post(
        client, action="watch", titles="Apple|Nonexistent probe|Special:X", token=watch_token
    )
    assert done == {
        "batchcomplete": "",
        "watch": [
            {"ns": -1, "title": "Special:X", "special": "", "missing": ""},
            {"title": "Nonexistent probe", "ns": 0, "watched": "", "missing": ""},
            {"title": "Apple", "ns": 0, "watched": ""},
        ],
    }
    wl = schema.watchlist
    rows = await _rows(wiki, wl, wl.c.wl_title == "Apple")
    assert sorted(r["wl_namespace"] for r in rows) == [0, 1]
    undone = await wiki.post(client, action="watch", titles="Apple", unwatch="1", token=watch_token)
    assert undone["watch"] == [{"title": "Apple", "ns": 0, "unwatched": ""}]
    csrf = data["query"]["tokens"]["csrftoken"]
    edited = await wiki.post(client, action="edit", title="Fresh", text="x", token=csrf)
    assert edited["edit"]["watched"] == ""  # watchdefault
    kept = await wiki.post(
        client, action="edit", title="Fresh 2", text="x", watchlist="nochange", token=csrf
    )
    assert "watched" not in kept["edit"]


async def test_tags_userrights_rollback_patrol_purge(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    token = await _admin(wiki, client)
    created = await wiki.post(
        client, action="managetags", operation="create", tag="probe-tag", reason="r", token=token
    )
    assert created["managetags"]["operation"] == "create" and created["managetags"]["success"] == ""
    dup = await wiki.post(
        client, action="managetags", operation="create", tag="probe-tag", token=token
    )
    assert dup["error"]["code"] == "tags-create-already-exists"
    rev = await wiki.edit_page("Banana", "banana", user="Alice")
    tagged = await wiki.post(
        client, action="tag", revid=str(rev), add="probe-tag", reason="tg", token=token
    )
    item = tagged["tag"][0]
    assert (item["revid"], item["status"], item["added"], item["removed"]) == (
        rev,
        "success",
        ["probe-tag"],
        [],
    )
    noop = await wiki.post(client, action="tag", revid=str(rev), add="probe-tag", token=token)
    assert noop["tag"] == [{"revid": rev, "status": "success", "noop": ""}]
    await wiki.post(client, action="managetags", operation="create", tag="unused-tag", token=token)
    gone = await wiki.post(
        client, action="managetags", operation="deactivate", tag="unused-tag", token=token
    )
    assert gone["managetags"]["success"] == ""
    missing = await wiki.post(
        client, action="managetags", operation="activate", tag="unused-tag", token=token
    )
    assert missing["error"]["code"] == "tags-activate-not-found"
    bad = await wiki.post(client, action="tag", revid=str(rev), add="unused-tag", token=token)
    assert bad["error"]["code"] == "badtags" and bad["error"]["disallowedtags"] == ["unused-tag"]

    rights_token = (await wiki.api(client, action="query", meta="tokens", type="userrights"))[
        "query"
    ]["tokens"]["userrightstoken"]
    added = await wiki.post(
        client, action="userrights", user="Alice", add="bot", reason="ur", token=rights_token
    )
    assert added == {
        "userrights": {
            "user": "Alice",
            "userid": added["userrights"]["userid"],
            "added": ["bot"],
            "removed": [],
        }
    }
    removed = await wiki.post(
        client, action="userrights", user="Alice", remove="bot", token=rights_token
    )
    assert removed["userrights"]["removed"] == ["bot"] and removed["userrights"]["added"] == []
    assert [r["log_action"] for r in await _logs(wiki, "rights")] == ["rights", "rights"]

    await wiki.edit_page("Banana", "vandalised", user="Robot")
    await wiki.edit_page("Banana", "vandalised more", user="Robot")
    rollback_token = (await wiki.api(client, action="query", meta="tokens", type="rollback"))[
        "query"
    ]["tokens"]["rollbacktoken"]
    rolled = await wiki.post(
        client, action="rollback", title="Banana", user="Robot", token=rollback_token
    )
    assert rolled["rollback"]["summary"] == (
        "Reverted edits by [[Special:Contributions/Robot|Robot]] ([[User talk:Robot|talk]]) to "
        "last revision by [[User:Alice|Alice]]"
    )
    assert rolled["rollback"]["last_revid"] == rev
    again = await wiki.post(
        client, action="rollback", title="Banana", user="Robot", token=rollback_token
    )
    assert again["error"]["code"] == "alreadyrolled"

    edit = await wiki.post(client, action="edit", title="Patrol me", text="x", token=token)
    async with wiki.client() as alice:
        await wiki.login(alice, "Alice")
        alice_csrf = await wiki.csrf(alice)
        mine = await wiki.post(alice, action="edit", title="Alice page", text="x", token=alice_csrf)
    patrol_token = (await wiki.api(client, action="query", meta="tokens", type="patrol"))["query"][
        "tokens"
    ]["patroltoken"]
    patrolled = await wiki.post(
        client, action="patrol", revid=str(mine["edit"]["newrevid"]), token=patrol_token
    )
    assert patrolled["patrol"]["title"] == "Alice page"
    rc = schema.recentchanges
    row = (await _rows(wiki, rc, rc.c.rc_this_oldid == mine["edit"]["newrevid"]))[0]
    assert row["rc_patrolled"] == 1
    none = await wiki.post(client, action="patrol", rcid="999999", token=patrol_token)
    assert none["error"]["code"] == "nosuchrcid"
    assert edit["edit"]["result"] == "Success"

    purged = await wiki.post(
        client, action="purge", titles="Banana|Nope probe", forcelinkupdate="1"
    )
    assert purged == {
        "batchcomplete": "",
        "purge": [
            {"ns": 0, "title": "Nope probe", "missing": ""},
            {"ns": 0, "title": "Banana", "purged": "", "linkupdate": ""},
        ],
    }


async def test_upload_with_stash(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    token = await _admin(wiki, client)
    response = await client.post(
        "/w/api.php",
        data={
            "action": "upload",
            "filename": "Pixel.gif",
            "stash": "1",
            "token": token,
            "format": "json",
        },
        files={"file": ("px.gif", GIF, "image/gif")},
    )
    stashed = response.json()["upload"]
    assert stashed["result"] == "Success" and stashed["filekey"] == stashed["sessionkey"]
    done = (
        await client.post(
            "/w/api.php",
            data={
                "action": "upload", "filename": "Pixel.gif", "filekey": stashed["filekey"],
                "comment": "a pixel", "text": "A [[Category:Pixels]] pixel.", "token": token,
                "format": "json",
            },
        )
    ).json()["upload"]  # fmt: skip
    assert done["result"] == "Success" and done["filename"] == "Pixel.gif"
    info = done["imageinfo"]
    assert (info["width"], info["height"], info["size"], info["mime"]) == (
        1,
        1,
        len(GIF),
        "image/gif",
    )
    stored = list(wiki.settings.data_dir.glob("wiki-files/images/*/*/Pixel.gif"))
    assert len(stored) == 1 and stored[0].read_bytes() == GIF
    page = await wiki.api(
        client, action="query", titles="File:Pixel.gif", prop="categories", formatversion=2
    )
    assert page["query"]["pages"][0]["categories"] == [{"ns": 14, "title": "Category:Pixels"}]
    assert [r["log_action"] for r in await _logs(wiki, "upload")] == ["upload"]
    again = (
        await client.post(
            "/w/api.php",
            data={"action": "upload", "filename": "Copy.gif", "token": token, "format": "json"},
            files={"file": ("px.gif", GIF, "image/gif")},
        )
    ).json()["upload"]
    assert again["result"] == "Warning" and again["warnings"] == {"duplicate": ["Pixel.gif"]}
    async with wiki.client() as anon:
        refused = (
            await anon.post(
                "/w/api.php",
                data={"action": "upload", "filename": "X.gif", "token": "+\\", "format": "json"},
                files={"file": ("px.gif", GIF, "image/gif")},
            )
        ).json()
    assert refused["error"]["code"] == "permissiondenied"


async def test_upload_journal(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """As MediaWiki 1.39 (LocalFile::recordUpload3): a new file's upload entry then the page's
    `create` entry; one recent-changes row, the upload's, showing the description page's first
    revision; a re-upload adds a null revision "uploaded a new version of" that its row shows."""
    token = await _admin(wiki, client)

    async def upload(data: bytes, comment: str) -> None:
        sent = await client.post(
            "/w/api.php",
            data={"action": "upload", "filename": "Journal.gif", "comment": comment,
                  "ignorewarnings": "1", "token": token, "format": "json"},
            files={"file": ("j.gif", data, "image/gif")},
        )  # fmt: skip
        assert sent.json()["upload"]["result"] == "Success", sent.json()

    await upload(GIF, "firstup")
    q = {"action": "query", "formatversion": "2"}
    logs = await wiki.api(
        client, **q, list="logevents", lelimit="2", leprop="ids|title|type|comment"
    )
    page_id = logs["query"]["logevents"][0]["pageid"]
    assert [(e["type"], e["action"], e["comment"], e["pageid"]) for e in logs["query"]["logevents"]] == [
        ("create", "create", "firstup", page_id), ("upload", "upload", "firstup", page_id),
    ]  # fmt: skip
    rcprop = "title|ids|loginfo|comment|sizes|flags"
    changes = await wiki.api(client, **q, list="recentchanges", rcprop=rcprop, rclimit="2")
    first = changes["query"]["recentchanges"][0]
    revs = await wiki.api(client, **q, prop="revisions", titles="File:Journal.gif",
                          rvprop="ids|comment", rvlimit="5")  # fmt: skip
    history = revs["query"]["pages"][0]["revisions"]
    assert history == [{"revid": first["revid"], "parentid": 0, "comment": "firstup"}]
    assert (first["type"], first["logtype"], first["logaction"], first["pageid"]) == (
        "log", "upload", "upload", page_id,
    )  # fmt: skip
    assert (first["old_revid"], first["new"], first["oldlen"], first["newlen"]) == (0, False, 0, 0)
    assert len(changes["query"]["recentchanges"]) == 1
    await upload(GIF + b"\x00", "second")
    changes = await wiki.api(client, **q, list="recentchanges", rcprop=rcprop, rclimit="1")
    over = changes["query"]["recentchanges"][0]
    revs = await wiki.api(client, **q, prop="revisions", titles="File:Journal.gif",
                          rvprop="ids|comment|flags", rvlimit="5")  # fmt: skip
    newest = revs["query"]["pages"][0]["revisions"][0]
    assert newest == {
        "revid": over["revid"], "parentid": first["revid"], "minor": False,
        "comment": "Admin uploaded a new version of [[File:Journal.gif]]",
    }  # fmt: skip
    assert (over["logaction"], over["comment"], over["pageid"]) == ("overwrite", "second", page_id)


async def test_append_and_prepend_override_text_and_md5(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """ApiEditPage: with appendtext/prependtext, `text` is ignored and md5 covers them."""
    import hashlib

    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    await wiki.post(client, action="edit", title="Layers", text="middle", token=token)
    md5 = hashlib.md5(b"top\n" + b"\nbottom").hexdigest()
    done = await wiki.post(
        client,
        action="edit",
        title="Layers",
        text="ignored",
        prependtext="top\n",
        appendtext="\nbottom",
        md5=md5,
        token=token,
    )
    assert done["edit"]["result"] == "Success", done
    raw = await client.get("/w/index.php", params={"title": "Layers", "action": "raw"})
    assert raw.text == "top\nmiddle\nbottom"
    wrong = await wiki.post(
        client,
        action="edit",
        title="Layers",
        text="x",
        appendtext="y",
        md5=hashlib.md5(b"x").hexdigest(),
        token=token,
    )
    assert wrong["error"]["code"] == "badmd5"


async def test_empty_protections_unprotect(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Shielded", "x")
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    await wiki.post(
        client, action="protect", title="Shielded", protections="edit=sysop|move=sysop", token=token
    )
    # a type the request leaves out is lifted
    await wiki.post(
        client, action="protect", title="Shielded", protections="edit=sysop", token=token
    )
    info = await wiki.api(
        client, action="query", titles="Shielded", prop="info", inprop="protection"
    )
    protection = next(iter(info["query"]["pages"].values()))["protection"]
    assert [p["type"] for p in protection] == ["edit"]
    done = await wiki.post(client, action="protect", title="Shielded", protections="", token=token)
    assert done["protect"]["protections"] == []
    info = await wiki.api(
        client, action="query", titles="Shielded", prop="info", inprop="protection"
    )
    assert next(iter(info["query"]["pages"].values()))["protection"] == []
    async with wiki.client() as anon:
        anon_edit = await wiki.post(anon, action="edit", title="Shielded", text="y", token="+\\")
        assert anon_edit["edit"]["result"] == "Success", anon_edit
