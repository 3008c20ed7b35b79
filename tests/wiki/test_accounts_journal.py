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
    assert refused_signup["createaccount"] == {
        "status": "FAIL", "message": "You have not specified a valid username.",
        "messagecode": "noname",
    }  # fmt: skip
