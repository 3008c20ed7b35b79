"""Account creation in the journal and `list=users&usprop=cancreate`, as MediaWiki 1.39: the
`newusers` log (create by the new user, create2 by a logged-in creator with the reason, both in
recent changes; autocreate by the maintenance command, not in recent changes) and
`cancreateerror` for valid names that cannot be created (ApiErrorFormatter::arrayFromStatus)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.changes.registration import autocreate

pytestmark = pytest.mark.anyio


async def _create(wiki: WikiHarness, client: httpx.AsyncClient, name: str, **extra: str) -> Any:
    tokens = await wiki.api(client, action="query", meta="tokens", type="createaccount")
    return await wiki.post(
        client, action="createaccount", username=name, password="Secret-pass-1234",
        retype="Secret-pass-1234", createreturnurl="http://x/",
        createtoken=tokens["query"]["tokens"]["createaccounttoken"], **extra,
    )  # fmt: skip


async def test_newusers_log(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    async with wiki.client() as anon:
        assert (await _create(wiki, anon, "Newbie"))["createaccount"]["status"] == "PASS"
    await wiki.login(client, "Admin")
    made = await _create(wiki, client, "Other", reason="for tests")
    assert made["createaccount"]["status"] == "PASS"
    await wiki.db.write(lambda conn: autocreate(conn, "Scripted", "Secret-pass-1234", ["sysop"]))
    ids = await wiki.api(client, action="query", list="users", ususers="Newbie|Other|Scripted",
                         formatversion="2")  # fmt: skip
    uid = {u["name"]: u["userid"] for u in ids["query"]["users"]}
    logs = await wiki.api(client, action="query", list="logevents", letype="newusers",
                          formatversion="2", leprop="title|type|user|comment|details|ids")  # fmt: skip
    assert [
        (e["title"], e["action"], e["user"], e["comment"], e["params"], e["pageid"])
        for e in logs["query"]["logevents"]
    ] == [
        ("User:Scripted", "autocreate", "Scripted", "", {"userid": uid["Scripted"]}, 0),
        ("User:Other", "create2", "Admin", "for tests", {"userid": uid["Other"]}, 0),
        ("User:Newbie", "create", "Newbie", "", {"userid": uid["Newbie"]}, 0),
    ]  # fmt: skip
    changes = await wiki.api(client, action="query", list="recentchanges", rctype="log",
                             rcprop="title|loginfo|user|comment|ids", formatversion="2")  # fmt: skip
    rows = [c for c in changes["query"]["recentchanges"] if c["logtype"] == "newusers"]
    assert [(c["title"], c["logaction"], c["user"], c["logparams"], c["revid"]) for c in rows] == [
        ("User:Other", "create2", "Admin", {"userid": uid["Other"]}, 0),
        ("User:Newbie", "create", "Newbie", {"userid": uid["Newbie"]}, 0),
    ]  # fmt: skip


async def test_cancreate(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    names = "Admin|Free name|Foo#bar|Talk:Foo|lower|X@y|Foo:bar|Maintenance script|" + "L" * 236
    data = await wiki.api(client, action="query", list="users", usprop="cancreate",
                          ususers=names, formatversion="2")  # fmt: skip
    noname = [{"message": "noname", "params": [], "code": "invaliduser", "type": "error"}]
    refused = {"missing": True, "cancreate": False, "cancreateerror": noname}
    assert data["query"]["users"] == [
        {"name": "Foo#bar", "invalid": True},
        {"name": "Talk:Foo", "invalid": True},
        {"userid": 1, "name": "Admin"},
        {"name": "Free name", "missing": True, "cancreate": True},
        {"name": "Lower", "missing": True, "cancreate": True},
        {"name": "X@y", **refused},
        {"name": "Foo:bar", **refused},
        {"name": "Maintenance script", **refused},
        {"name": "L" * 236, **refused},
    ]  # fmt: skip
    bc = await wiki.api(client, action="query", list="users", usprop="cancreate", ususers="X@y")
    assert bc["query"]["users"] == [{"name": "X@y", "missing": "", "cancreateerror": noname}]
    plain = await wiki.api(client, action="query", list="users", usprop="cancreate",
                           ususers="X@y", formatversion="2", errorformat="plaintext")  # fmt: skip
    assert plain["query"]["users"][0]["cancreateerror"] == [
        {"code": "invaliduser", "text": "You have not specified a valid username."}
    ]
    refused_signup = await _create(wiki, client, "Maintenance script")
    # formatversion=1 leaves out the false `canpreservestate` (data/auth_failure_cases.json)
    assert refused_signup["createaccount"] == {
        "status": "FAIL", "message": "You have not specified a valid username.",
        "messagecode": "invaliduser",
    }  # fmt: skip


async def _login(wiki: WikiHarness, client: httpx.AsyncClient, name: str) -> None:
    tokens = await wiki.api(client, action="query", meta="tokens", type="login")
    done = await wiki.post(
        client, action="clientlogin", username=name, password="Secret-pass-1234",
        logintoken=tokens["query"]["tokens"]["logintoken"], loginreturnurl="http://x/",
    )  # fmt: skip
    assert done["clientlogin"]["status"] == "PASS", done


async def _watchlistraw(wiki: WikiHarness, client: httpx.AsyncClient) -> Any:
    data = await wiki.api(client, action="query", list="watchlistraw", wrprop="changed",
                          formatversion="2")  # fmt: skip
    return data["watchlistraw"]


async def test_new_account_watches_its_user_pages(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """As MediaWiki 1.39 answered: every new account (signed up, made by someone else, made by
    createAndPromote) watches its user page and user talk page; the creator's `create2` entry,
    published to recent changes, marks the user page changed for it (`changed` is the entry's
    time); the creator watches nothing new."""
    async with wiki.client() as anon:
        assert (await _create(wiki, anon, "Newbie"))["createaccount"]["status"] == "PASS"
    await wiki.login(client, "Admin")
    assert (await _create(wiki, client, "Other"))["createaccount"]["status"] == "PASS"
    await wiki.db.write(lambda conn: autocreate(conn, "Scripted", "Secret-pass-1234"))
    logs = await wiki.api(client, action="query", list="logevents", letype="newusers",
                          leprop="title|timestamp", formatversion="2")  # fmt: skip
    made_at = {e["title"]: e["timestamp"] for e in logs["query"]["logevents"]}
    assert await _watchlistraw(wiki, client) == []
    for name in ("Newbie", "Other", "Scripted"):
        async with wiki.client() as own:
            await _login(wiki, own, name)
            changed = {"changed": made_at["User:Other"]} if name == "Other" else {}
            assert await _watchlistraw(wiki, own) == [
                {"ns": 2, "title": f"User:{name}", **changed},
                {"ns": 3, "title": f"User talk:{name}"},
            ]
            if name == "Newbie":
                feed = await wiki.api(own, action="query", list="watchlist",
                                      wlprop="title|user", formatversion="2")  # fmt: skip
                assert feed["query"]["watchlist"] == [
                    {"type": "log", "ns": 2, "title": "User:Newbie", "user": "Newbie",
                     "anon": False},
                ]  # fmt: skip


async def test_log_entries_mark_watched_pages_changed(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """A published log entry (here a protection) marks the page changed for its other watchers,
    as an edit does (RecentChange::save -> EmailNotification::notifyOnPageChange)."""
    await wiki.edit_page("Guarded", "text")
    async with wiki.client() as alice:
        await wiki.login(alice, "Alice")
        tokens = await wiki.api(alice, action="query", meta="tokens", type="watch")
        done = await wiki.post(alice, action="watch", titles="Guarded",
                               token=tokens["query"]["tokens"]["watchtoken"])  # fmt: skip
        assert "error" not in done, done
        await wiki.login(client, "Admin")
        done = await wiki.post(client, action="protect", title="Guarded",
                               protections="edit=sysop", token=await wiki.csrf(client))  # fmt: skip
        assert "error" not in done, done
        logs = await wiki.api(client, action="query", list="logevents", letype="protect",
                              leprop="timestamp", formatversion="2")  # fmt: skip
        assert await _watchlistraw(wiki, alice) == [
            {"ns": 0, "title": "Guarded", "changed": logs["query"]["logevents"][0]["timestamp"]},
            {"ns": 1, "title": "Talk:Guarded"},
        ]


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "You have not specified a valid username."),
        ("de", "Du musst einen gültigen Benutzernamen angeben."),
        ("fr", "Vous n’avez pas saisi un nom d’utilisateur valide."),
        ("de-formal", "Du musst einen gültigen Benutzernamen angeben."),
    ],
)
async def test_noname_texts(
    wiki: WikiHarness, client: httpx.AsyncClient, lang: str, text: str
) -> None:
    """`noname` in the user language, as MediaWiki 1.39's cancreateerror shows it."""
    data = await wiki.api(client, action="query", list="users", ususers="X@y", usprop="cancreate",
                          errorformat="plaintext", uselang=lang, formatversion="2")  # fmt: skip
    assert data["query"]["users"] == [
        {"name": "X@y", "missing": True, "cancreate": False,
         "cancreateerror": [{"code": "invaliduser", "text": text}]},
    ]  # fmt: skip


async def test_missing_user_refusals(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """action=block and action=userrights on a user that does not exist: MediaWiki 1.39's
    nosuchusershort with the name (code nosuchuser)."""
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    rights = await wiki.api(client, action="query", meta="tokens", type="userrights")
    for action, extra in (
        ("block", {"token": token}),
        ("userrights", {"add": "bot",
                        "token": rights["query"]["tokens"]["userrightstoken"]}),
    ):  # fmt: skip
        raw = await wiki.post(client, action=action, user="Nobody here", errorformat="raw", **extra)
        assert raw["errors"] == [
            {"code": "nosuchuser", "key": "nosuchusershort", "params": ["Nobody here"],
             "module": action},
        ]  # fmt: skip
        bc = await wiki.post(client, action=action, user="Nobody here", **extra)
        assert (
            bc["error"]["info"]
            == 'There is no user by the name "Nobody here". Check your spelling.'
        )
