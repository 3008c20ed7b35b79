"""Journal lists: recentchanges, logevents, usercontribs, allrevisions, watchlist, on a
wiki built through the API (`journal_seed`). Shapes, field order and error codes are MediaWiki
1.39's (checked against 127.0.0.1:8181); the paging property walks each list to its end."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.wiki.conftest import WikiHarness
from tests.wiki.journal_seed import journaled_wiki

from atrium.wiki import schema
from atrium.wiki.changes.watching import watchlist_token
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio


@pytest.fixture
async def journaled_and_client(
    data_dir: Path,
    database_url: str | None,
    sqlite_templates: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[WikiHarness, httpx.AsyncClient]]:
    cache = tmp_path_factory.getbasetemp()
    async with journaled_wiki(data_dir, database_url, sqlite_templates, cache) as pair:
        yield pair


@pytest.fixture
def journaled(journaled_and_client: tuple[WikiHarness, httpx.AsyncClient]) -> WikiHarness:
    return journaled_and_client[0]


@pytest.fixture
def client(journaled_and_client: tuple[WikiHarness, httpx.AsyncClient]) -> httpx.AsyncClient:
    """Signed in as Admin, as `journal` leaves it."""
    return journaled_and_client[1]


async def _q(wiki: WikiHarness, client: httpx.AsyncClient, **params: Any) -> Any:
    return await wiki.api(client, action="query", formatversion="2", **params)


async def walk(wiki: WikiHarness, client: httpx.AsyncClient, key: str, **params: Any) -> list[Any]:
    """Follow `continue` to the end; every item of `query[key]`, in order."""
    items: list[Any] = []
    cont: dict[str, Any] = {}
    for _ in range(300):
        data = await _q(wiki, client, **params, **cont)
        assert "error" not in data, data
        items.extend((data if key == "watchlistraw" else data["query"])[key])
        if "continue" not in data:
            return items
        cont = data["continue"]
    raise AssertionError("continuation did not end")


async def test_recentchanges(journaled: WikiHarness, client: httpx.AsyncClient) -> None:
    props = "title|timestamp|ids|comment|flags|loginfo|redirect|sha1|sizes|tags|user|userid"
    data = await _q(journaled, client, list="recentchanges", rcprop=props, rclimit="3")
    newest = data["query"]["recentchanges"][0]
    assert list(newest) == [
        "type", "ns", "title", "pageid", "revid", "old_revid", "rcid", "user", "userid", "anon",
        "bot", "new", "minor", "oldlen", "newlen", "timestamp", "comment", "redirect", "tags",
        "sha1",
    ]  # fmt: skip
    assert newest["type"] == "new" and newest["title"] == "Talk:Banana"
    assert newest["anon"] is True and newest["userid"] == 0 and newest["oldlen"] == 0
    bot_edit = data["query"]["recentchanges"][1]
    assert (bot_edit["user"], bot_edit["bot"], bot_edit["minor"]) == ("Alice", True, False)
    assert data["continue"]["rccontinue"].count("|") == 1
    fv1 = await journaled.api(client, action="query", list="recentchanges", rcprop="flags")
    assert fv1["query"]["recentchanges"][0] == {"type": "new", "new": ""}
    logs = await _q(
        journaled, client, list="recentchanges", rctype="log", rcprop="title|loginfo|ids",
        rclimit="max",
    )  # fmt: skip
    by_type = {e["logtype"]: e for e in logs["query"]["recentchanges"]}
    assert by_type["move"]["logparams"] == {"target_ns": 0, "target_title": "Moved filler"}
    # A move's row carries the null revision that records it (MediaWiki's associated revision).
    assert by_type["move"]["old_revid"] == 0 and by_type["delete"]["revid"] == 0
    moved = await _q(journaled, client, revids=str(by_type["move"]["revid"]), prop="revisions",
                     rvprop="comment")  # fmt: skip
    assert moved["query"]["pages"][0]["title"] == "Moved filler"
    assert by_type["rights"]["logparams"]["newmetadata"] == [{"group": "bot", "expiry": "infinity"}]
    assert "tag" not in by_type  # tag/update is logged without a recent-changes row
    tagged = await _q(journaled, client, list="recentchanges", rctag="fruity")
    assert [e["title"] for e in tagged["query"]["recentchanges"]] == ["Banana"]
    unknown = await _q(journaled, client, list="recentchanges", rctag="no such tag")
    assert unknown["query"]["recentchanges"] == []
    minor = await _q(journaled, client, list="recentchanges", rcshow="minor|!bot", rcprop="title")
    assert [e["title"] for e in minor["query"]["recentchanges"]] == ["Cherry", "Cherry", "Apple"]
    only = await _q(journaled, client, list="recentchanges", rcuser="Alice", rctoponly="1")
    assert [e["title"] for e in only["query"]["recentchanges"]] == ["Apple", "Cherry"]
    titled = await _q(journaled, client, list="recentchanges", rctitle="Cherry", rcdir="newer")
    assert [e["revid"] for e in titled["query"]["recentchanges"]] == sorted(
        e["revid"] for e in titled["query"]["recentchanges"]
    )
    both = await _q(journaled, client, list="recentchanges", rcuser="Alice", rcexcludeuser="Bob")
    assert both["error"]["code"] == "invalidparammix"
    conflict = await _q(journaled, client, list="recentchanges", rcshow="minor|!minor")
    assert conflict["error"] == {
        "code": "show",
        "info": "Incorrect parameter - mutually exclusive values may not be supplied.",
        "docref": conflict["error"]["docref"],
    }
    async with journaled.client() as anon:
        denied = await _q(journaled, anon, list="recentchanges", rcprop="patrolled")
        assert denied["error"]["code"] == "permissiondenied"
        assert denied["error"]["info"] == (
            'You need the "patrol" or "patrolmarks" right to request the patrolled flag.'
        )
    patrol = await _q(journaled, client, list="recentchanges", rcprop="patrolled", rclimit="1")
    assert patrol["query"]["recentchanges"][0] == {
        "type": "new", "patrolled": False, "unpatrolled": True, "autopatrolled": False,
    }  # fmt: skip
    bad = await _q(journaled, client, list="recentchanges", rccontinue="x")
    assert bad["error"]["code"] == "badcontinue"
    gen = await _q(journaled, client, generator="recentchanges", grclimit="3", prop="info")
    assert {p["title"] for p in gen["query"]["pages"]} == {"Talk:Banana", "Apple", "Cherry"}
    revs = await _q(
        journaled, client, generator="recentchanges", grcgeneraterevisions="1", grclimit="2",
        grctype="edit", prop="revisions",
    )  # fmt: skip
    assert sorted(p["title"] for p in revs["query"]["pages"]) == ["Apple", "Cherry"]


async def test_logevents(journaled: WikiHarness, client: httpx.AsyncClient) -> None:
    props = "ids|title|type|user|userid|timestamp|comment|parsedcomment|details|tags"
    data = await _q(journaled, client, list="logevents", leprop=props, letype="block")
    (block,) = data["query"]["logevents"]
    assert list(block) == [
        "logid", "ns", "title", "pageid", "logpage", "params", "type", "action", "user",
        "userid", "timestamp", "comment", "parsedcomment", "tags",
    ]  # fmt: skip
    assert block["title"] == "User:192.0.2.7" and block["params"]["duration"] == "1 week"
    moved = await _q(journaled, client, list="logevents", leaction="move/move")
    (move,) = moved["query"]["logevents"]
    assert (move["title"], move["logpage"], move["comment"]) == ("Filler page 15", 28, "rename")
    assert move["pageid"] not in (0, 28)  # the redirect left at the old title
    assert move["params"] == {"target_ns": 0, "target_title": "Moved filler"}
    tags = await _q(journaled, client, list="logevents", letype="managetags", leprop="details")
    assert tags["query"]["logevents"][0]["params"]["tag"] == "fruity"
    prefixed = await _q(
        journaled, client, list="logevents", leprefix="Filler page 1", leprop="title|type",
        ledir="newer",
    )  # fmt: skip
    assert [(e["title"], e["type"]) for e in prefixed["query"]["logevents"]] == [
        *((f"Filler page {i}", "create") for i in range(10, 16)), ("Filler page 15", "move"),
    ]  # fmt: skip
    created = await _q(journaled, client, list="logevents", letitle="Apple",
                       leprop="type|comment|ids")  # fmt: skip
    assert created["query"]["logevents"] == [
        {"logid": created["query"]["logevents"][0]["logid"], "pageid": 5, "logpage": 5,
         "type": "create", "action": "create", "comment": "seed"},
    ]  # fmt: skip
    wildcard = await _q(journaled, client, list="logevents", leaction="move/*")
    assert wildcard["error"]["code"] == "unknown_leaction"  # MediaWiki checks it in execute()
    assert wildcard["error"]["info"] == 'Unrecognized value for parameter "leaction": move/*.'
    mixed = await _q(journaled, client, list="logevents", letitle="A", leprefix="A")
    assert mixed["error"]["code"] == "invalidparammix"
    assert (
        mixed["error"]["info"]
        == 'The parameters "letitle" and "leprefix" can not be used together.'
    )
    by_user = await _q(journaled, client, list="logevents", leuser="Alice")
    assert by_user["query"]["logevents"] == []
    ns_user = await _q(journaled, client, list="logevents", lenamespace="2", leprop="type")
    assert [e["type"] for e in ns_user["query"]["logevents"]] == ["rights", "block", "create"]
    not_in_rc = await _q(journaled, client, list="recentchanges", rctype="log", rcprop="loginfo",
                         rclimit="max")  # fmt: skip
    assert "create" not in {e["logtype"] for e in not_in_rc["query"]["recentchanges"]}


async def test_usercontribs(journaled: WikiHarness, client: httpx.AsyncClient) -> None:
    props = "ids|title|timestamp|comment|size|flags|sizediff|tags"
    data = await _q(journaled, client, list="usercontribs", ucuser="Alice", ucprop=props)
    first = data["query"]["usercontribs"][0]
    assert list(first) == [
        "userid", "user", "pageid", "revid", "parentid", "ns", "title", "timestamp", "new",
        "minor", "top", "comment", "size", "sizediff", "tags",
    ]  # fmt: skip
    assert [c["title"] for c in data["query"]["usercontribs"]] == ["Apple", "Cherry", "Cherry"]
    assert [c["top"] for c in data["query"]["usercontribs"]] == [True, True, False]
    assert first["sizediff"] == len("\nAlice.")
    missing = await _q(journaled, client, list="usercontribs")
    assert missing["error"]["code"] == "missingparam"
    assert missing["error"]["info"] == (
        'One of the parameters "ucuserprefix", "ucuserids" and "ucuser" is required.'
    )
    mix = await _q(journaled, client, list="usercontribs", ucuser="Alice", ucuserids="1")
    assert (
        mix["error"]["info"] == 'The parameters "ucuser" and "ucuserids" can not be used together.'
    )
    several = await _q(journaled, client, list="usercontribs", ucuser="Alice|Admin", uclimit="1")
    assert several["continue"]["uccontinue"].startswith("actor|")
    prefix = await _q(journaled, client, list="usercontribs", ucuserprefix="Al", uclimit="1")
    assert prefix["continue"]["uccontinue"].startswith("name|Alice|")
    top = await _q(journaled, client, list="usercontribs", ucuser="Alice", ucshow="!top")
    assert [c["revid"] for c in top["query"]["usercontribs"]] == [first["revid"] - 2]
    anon = await _q(journaled, client, list="usercontribs", ucuser="127.0.0.1")
    assert [c["title"] for c in anon["query"]["usercontribs"]] == ["Talk:Banana"]
    tagged = await _q(journaled, client, list="usercontribs", ucuser="Admin", uctag="fruity")
    assert [c["title"] for c in tagged["query"]["usercontribs"]] == ["Banana"]
    conflict = await _q(journaled, client, list="usercontribs", ucuser="Alice", ucshow="new|!new")
    assert conflict["error"]["code"] == "show"


async def test_allrevisions(journaled: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await _q(journaled, client, list="allrevisions", arvlimit="4")
    groups = data["query"]["allrevisions"]
    assert [g["title"] for g in groups] == ["Talk:Banana", "Apple", "Cherry"]
    assert list(groups[0]) == ["pageid", "revisions", "ns", "title"]
    assert len(groups[2]["revisions"]) == 2  # two revisions of Cherry in one batch
    assert list(groups[1]["revisions"][0]) == [
        "revid", "parentid", "minor", "user", "timestamp", "comment",
    ]  # fmt: skip
    alice = await _q(journaled, client, list="allrevisions", arvuser="Alice", arvprop="ids")
    assert sum(len(g["revisions"]) for g in alice["query"]["allrevisions"]) == 3
    gen = await _q(journaled, client, generator="allrevisions", garvlimit="2", prop="revisions")
    pages = gen["query"]["pages"]
    assert sorted(p["title"] for p in pages) == ["Apple", "Talk:Banana"]
    titles = await _q(
        journaled, client, generator="allrevisions", garvlimit="3", garvgeneratetitles="1"
    )
    assert sorted(p["title"] for p in titles["query"]["pages"]) == [
        "Apple",
        "Cherry",
        "Talk:Banana",
    ]


async def test_watchlist(journaled: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await _q(
        journaled, client, list="watchlist", wlprop="ids|title|user|userid|notificationtimestamp",
        wllimit="2",
    )  # fmt: skip
    newest = data["query"]["watchlist"][0]
    assert list(newest) == [
        "type", "ns", "title", "pageid", "revid", "old_revid", "userid", "user", "anon",
        "notificationtimestamp",
    ]  # fmt: skip
    assert newest["title"] == "Talk:Banana" and newest["notificationtimestamp"] != ""
    ids_only = await _q(journaled, client, list="watchlist", wlprop="userid", wllimit="1")
    assert ids_only["query"]["watchlist"][0] == {
        "type": "new",
        "userid": 0,
        "user": 0,
        "anon": True,
    }
    cherry = await _q(
        journaled, client, list="watchlist", wlallrev="1", wlprop="title|ids", wllimit="max"
    )
    cherries = [e["revid"] for e in cherry["query"]["watchlist"] if e["title"] == "Cherry"]
    assert len(cherries) == 3
    latest = await _q(journaled, client, list="watchlist", wlprop="title")
    assert [e["title"] for e in latest["query"]["watchlist"]].count("Cherry") == 1
    unread = await _q(journaled, client, list="watchlist", wlshow="unread", wlprop="title")
    assert {e["title"] for e in unread["query"]["watchlist"]} == {"Talk:Banana", "Apple", "Cherry"}
    async with journaled.client() as anon:
        refused = await journaled.api(anon, action="query", list="watchlist")
        assert refused["error"]["code"] == "notloggedin"
        assert refused["error"]["info"] == "Please log in to view or edit items on your watchlist."
        wrong = await _q(journaled, anon, list="watchlist", wlowner="Admin", wltoken="nope")
        assert wrong["error"]["code"] == "bad_wltoken"
        nobody = await _q(journaled, anon, list="watchlist", wlowner="Nobody", wltoken="x")
        assert nobody["error"] == {
            "code": "bad_wlowner",
            "info": 'There is no user by the name "Nobody". Check your spelling.',
            "docref": nobody["error"]["docref"],
        }
        admin = await journaled.db.read(account_by_name, "Admin")
        token = await journaled.db.write(lambda conn: watchlist_token(conn, admin.id))
        owned = await _q(
            journaled, anon, list="watchlist", wlowner="Admin", wltoken=token, wlprop="title"
        )
        assert owned["query"]["watchlist"] == latest["query"]["watchlist"][:10]
    gen = await _q(journaled, client, generator="watchlist", gwllimit="2", prop="info")
    assert {p["title"] for p in gen["query"]["pages"]} == {"Talk:Banana", "Apple"}


PAGING = st.fixed_dictionaries(
    {
        "limit": st.integers(1, 9),
        "newer": st.booleans(),
        "window": st.booleans(),
        "module": st.sampled_from(
            ["recentchanges", "logevents", "usercontribs", "allrevisions", "watchlist"]
        ),
    }
)
_PREFIX = {
    "recentchanges": ("rc", {"rcprop": "ids|title|timestamp"}),
    "logevents": ("le", {"leprop": "ids|type|timestamp"}),
    "usercontribs": ("uc", {"ucuser": "Alice|Admin|127.0.0.1", "ucprop": "ids|timestamp"}),
    "allrevisions": ("arv", {"arvprop": "ids|timestamp"}),
    "watchlist": ("wl", {"wlprop": "ids|title|timestamp", "wlallrev": "1"}),
}


def _flatten(module: str, items: list[Any]) -> list[Any]:
    if module == "allrevisions":
        return [(r["timestamp"], r["revid"]) for g in items for r in g["revisions"]]
    return [tuple(sorted(i.items())) for i in items]


def _ts(row: tuple[Any, ...]) -> str:
    return str(row[0]) if isinstance(row[0], str) else str(dict(row)["timestamp"])


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=PAGING)
async def test_paging_walks_every_row_once(
    journaled: WikiHarness, client: httpx.AsyncClient, case: dict[str, Any]
) -> None:
    """Any limit, either direction, with or without a start/end window: every row exactly once,
    in the order of the whole list."""
    module = case["module"]
    prefix, extra = _PREFIX[module]
    params: dict[str, Any] = {"list": module, **extra}
    params[prefix + "dir"] = "newer" if case["newer"] else "older"
    full = await _q(journaled, client, **params, **{prefix + "limit": "max"})
    assert "continue" not in full
    expected = _flatten(module, full["query"][module])
    if case["window"]:
        stamps = sorted({_ts(row) for row in expected}, reverse=not case["newer"])
        if len(stamps) >= 2:
            start, end = stamps[0], stamps[-1]
            params[prefix + "start"], params[prefix + "end"] = start, end
            low, high = min(start, end), max(start, end)
            expected = [row for row in expected if low <= _ts(row) <= high]
    walked = _flatten(
        module,
        await walk(journaled, client, module, **params, **{prefix + "limit": str(case["limit"])}),
    )
    if module == "allrevisions":  # a batch groups its revisions by page
        walked, expected = sorted(walked), sorted(expected)
    assert walked == expected
    assert len(set(walked)) == len(walked) and len(walked) >= 5


async def test_users(journaled: WikiHarness, client: httpx.AsyncClient) -> None:
    props = (
        "blockinfo|cancreate|centralids|editcount|emailable|gender|groupmemberships|groups|"
        "implicitgroups|registration|rights"
    )
    data = await _q(journaled, client, list="users", ususers="Alice|Nobody|127.0.0.1|Bad<x|Admin",
                    usprop=props)  # fmt: skip
    invalid_ip, invalid, alice, nobody, admin = data["query"]["users"]
    assert invalid_ip == {"name": "127.0.0.1", "invalid": True}
    assert invalid == {"name": "Bad<x", "invalid": True}
    assert nobody == {"name": "Nobody", "missing": True, "cancreate": True}
    assert list(alice) == [
        "userid", "name", "editcount", "registration", "groups", "groupmemberships",
        "implicitgroups", "rights", "emailable", "gender", "centralids", "attachedlocal",
    ]  # fmt: skip
    assert alice["editcount"] == 3 and alice["groups"] == ["bot", "*", "user", "autoconfirmed"]
    assert alice["groupmemberships"] == [{"group": "bot", "expiry": "infinity"}]
    assert alice["rights"][:3] == ["bot", "autoconfirmed", "editsemiprotected"]
    assert (alice["gender"], alice["emailable"]) == ("unknown", False)
    assert alice["centralids"] == {"local": alice["userid"]}
    assert admin["groups"] == [
        "bureaucrat",
        "interface-admin",
        "sysop",
        "*",
        "user",
        "autoconfirmed",
    ]
    assert admin["rights"][:2] == ["userrights", "noratelimit"]
    by_id = await journaled.api(client, action="query", list="users", ususerids="1|999",
                                usprop="editcount")  # fmt: skip
    assert by_id["query"]["users"][1] == {"userid": 999, "missing": ""}
    both = await _q(journaled, client, list="users", ususers="Alice", ususerids="1")
    assert (
        both["error"]["info"]
        == 'The parameters "ususers" and "ususerids" can not be used together.'
    )


async def test_allusers(journaled: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await _q(journaled, client, list="allusers", aulimit="2",
                    auprop="centralids|editcount|registration|groups|implicitgroups|rights")  # fmt: skip
    first = data["query"]["allusers"][0]
    assert list(first) == [
        "userid", "name", "centralids", "attachedlocal", "editcount", "registration", "groups",
        "implicitgroups", "rights",
    ]  # fmt: skip
    assert first["groups"] == [
        "*",
        "user",
        "autoconfirmed",
        "bureaucrat",
        "interface-admin",
        "sysop",
    ]
    assert first["rights"][:3] == ["createaccount", "read", "edit"]
    assert data["continue"] == {"aufrom": "Robot", "continue": "-||"}
    bots = await _q(journaled, client, list="allusers", augroup="bot")
    assert [u["name"] for u in bots["query"]["allusers"]] == ["Alice", "Robot"]
    not_bots = await _q(journaled, client, list="allusers", auexcludegroup="bot")
    assert [u["name"] for u in not_bots["query"]["allusers"]] == ["Admin"]
    blockers = await _q(journaled, client, list="allusers", aurights="block")
    assert [u["name"] for u in blockers["query"]["allusers"]] == ["Admin"]
    nobody = await _q(journaled, client, list="allusers", aurights="hideuser")
    assert nobody["query"]["allusers"] == []
    active = await _q(journaled, client, list="allusers", auactiveusers="1")
    assert [(u["name"], u["recentactions"]) for u in active["query"]["allusers"]] == [
        ("Admin", 35), ("Alice", 3),
    ]  # fmt: skip
    prefix = await _q(journaled, client, list="allusers", auprefix="a", audir="descending")
    assert [u["name"] for u in prefix["query"]["allusers"]] == ["Alice", "Admin"]
    window = await _q(journaled, client, list="allusers", aufrom="B", auto="Z")
    assert [u["name"] for u in window["query"]["allusers"]] == ["Robot"]
    edits = await _q(journaled, client, list="allusers", auwitheditsonly="1")
    assert [u["name"] for u in edits["query"]["allusers"]] == ["Admin", "Alice"]


async def test_blocks(journaled: WikiHarness, client: httpx.AsyncClient) -> None:
    token = await journaled.csrf(client)
    for params in (
        {"user": "10.0.0.0/24", "anononly": "1", "nocreate": "1"},
        {
            "user": "Robot",
            "partial": "1",
            "pagerestrictions": "Apple",
            "allowusertalk": "1",
            "namespacerestrictions": "1",
        },
    ):
        done = await journaled.post(client, action="block", token=token, reason="r", **params)
        assert "error" not in done, done
    props = "by|byid|expiry|flags|id|range|reason|restrictions|timestamp|user|userid"
    data = await _q(journaled, client, list="blocks", bkprop=props)
    robot, cidr, ip = data["query"]["blocks"]
    assert list(cidr) == [
        "id", "user", "userid", "by", "byid", "timestamp", "expiry", "reason", "rangestart",
        "rangeend", "automatic", "anononly", "nocreate", "autoblock", "noemail", "hidden",
        "allowusertalk", "partial", "restrictions",
    ]  # fmt: skip
    assert (cidr["user"], cidr["rangestart"], cidr["rangeend"]) == (
        "10.0.0.0/24", "10.0.0.0", "10.0.0.255",
    )  # fmt: skip
    assert (cidr["expiry"], cidr["anononly"], cidr["restrictions"]) == ("infinity", True, [])
    assert ip["user"] == "192.0.2.7" and ip["expiry"].endswith("Z")
    assert robot["partial"] is True and "rangestart" not in robot
    assert robot["restrictions"] == {
        "pages": [{"id": 5, "ns": 0, "title": "Apple"}], "namespaces": [1],
    }  # fmt: skip
    covering = await _q(journaled, client, list="blocks", bkip="10.0.0.7", bkprop="user")
    assert covering["query"]["blocks"] == [{"user": "10.0.0.0/24"}]
    accounts = await _q(journaled, client, list="blocks", bkshow="account", bkprop="user")
    assert accounts["query"]["blocks"] == [{"user": "Robot"}]
    ranges = await _q(journaled, client, list="blocks", bkshow="!range|!account|temp")
    assert [b["user"] for b in ranges["query"]["blocks"]] == ["192.0.2.7"]
    named = await _q(journaled, client, list="blocks", bkusers="Robot|192.0.2.7", bkdir="newer")
    assert [b["user"] for b in named["query"]["blocks"]] == ["192.0.2.7", "Robot"]
    broad = await _q(journaled, client, list="blocks", bkip="10.0.0.0/8")
    assert broad["error"] == {
        "code": "cidrtoobroad",
        "info": "IPv4 CIDR ranges broader than /16 are not accepted.",
        "docref": broad["error"]["docref"],
    }
    mixed = await _q(journaled, client, list="blocks", bkip="10.0.0.1", bkusers="X")
    assert mixed["error"]["info"] == 'The parameters "bkusers" and "bkip" can not be used together.'
    conflict = await _q(journaled, client, list="blocks", bkshow="temp|!temp")
    assert conflict["error"]["code"] == "show"
    # A suppressed block (hidename, which only the suppress group may set) is not listed for
    # callers without `hideuser`.
    ipb = schema.ipblocks
    await journaled.db.write(
        lambda conn: conn.execute(
            sa.update(ipb).where(ipb.c.ipb_address == "Robot").values(ipb_deleted=True)
        )
    )
    seen = await _q(journaled, client, list="blocks", bkprop="user")
    assert [b["user"] for b in seen["query"]["blocks"]] == ["10.0.0.0/24", "192.0.2.7"]


async def test_tags(journaled: WikiHarness, client: httpx.AsyncClient) -> None:
    props = "active|defined|description|displayname|hitcount|source"
    data = await _q(journaled, client, list="tags", tgprop=props, tglimit="2")
    assert data["query"]["tags"] == [
        {"name": "fruity", "displayname": "fruity", "description": "", "hitcount": 1,
         "defined": True, "source": ["manual"], "active": True},
        {"name": "mw-blank", "displayname": "Blanking", "description": "Edits that blank a page",
         "hitcount": 0, "defined": True, "source": ["extension"], "active": True},
    ]  # fmt: skip
    assert data["continue"] == {"tgcontinue": "mw-changed-redirect-target", "continue": "-||"}
    names = await walk(journaled, client, "tags", list="tags", tglimit="3")
    assert [t["name"] for t in names][-1] == "mw-undo" and len(names) == 12


async def test_userinfo_blockinfo_and_memberships(
    journaled: WikiHarness, client: httpx.AsyncClient
) -> None:
    token = await journaled.csrf(client)
    done = await journaled.post(
        client, action="block", user="Alice", expiry="infinite", reason="cool off", token=token
    )
    assert "error" not in done, done
    async with journaled.client() as alice:
        await journaled.login(alice, "Alice")
        data = await _q(journaled, alice, meta="userinfo", uiprop="blockinfo|groupmemberships")
    info = data["query"]["userinfo"]
    assert list(info)[:4] == ["id", "name", "blockid", "blockedby"]
    assert (info["blockedby"], info["blockreason"], info["blockexpiry"]) == (
        "Admin", "cool off", "infinite",
    )  # fmt: skip
    assert info["groupmemberships"] == [{"group": "bot", "expiry": "infinity"}]
    mine = await _q(journaled, client, meta="userinfo", uiprop="blockinfo")
    assert "blockid" not in mine["query"]["userinfo"]
