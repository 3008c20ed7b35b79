"""`action=mergehistory` against MediaWiki 1.39's recorded answers
(`data/mw139_mergehistory.json`): every refusal in ApiMergeHistory's order, a merge up to a
timestamp, and a whole merge that leaves the source a redirect; nothing moves on a refusal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.changes.pages import Editor, save_revision
from atrium.wiki.timestamps import iso

pytestmark = pytest.mark.anyio

RECORDED = json.loads((Path(__file__).parent / "data" / "mw139_mergehistory.json").read_text())
T1, T2, T3 = "20200101000000", "20200102000000", "20200103000000"


async def _save(wiki: WikiHarness, title: str, text: str, ts: str) -> int:
    parsed = wiki.site.parser.parse(title)
    saved = await wiki.db.write(
        lambda conn: save_revision(
            conn, wiki.site, parsed, text, Editor(None, "127.0.0.1"), timestamp=ts
        )
    )
    return int(saved.rev_id)


async def _pages(wiki: WikiHarness) -> None:
    await _save(wiki, "MSrc", "one", T1)
    await _save(wiki, "MSrc", "two", T2)
    await _save(wiki, "MDst", "dest", T3)


async def _merge(wiki: WikiHarness, client: httpx.AsyncClient, **params: Any) -> Any:
    token = await wiki.csrf(client)
    return await wiki.post(client, action="mergehistory", token=token, **params)


async def _history(wiki: WikiHarness, client: httpx.AsyncClient, title: str) -> list[Any]:
    data = await wiki.api(
        client, action="query", prop="revisions", titles=title, rvlimit="max",
        rvprop="ids|timestamp|comment|content|flags", rvslots="main", formatversion="2",
    )  # fmt: skip
    return list(data["query"]["pages"][0].get("revisions", []))


async def test_refusals_as_mediawiki(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await _pages(wiki)
    anonymous = RECORDED["anonymous"]
    refused = await _merge(wiki, client, **anonymous["params"])
    assert (refused["error"]["code"], refused["error"]["info"]) == (
        anonymous["code"],
        anonymous["info"],
    )
    await wiki.login(client, "Alice")  # no mergehistory right
    refused = await _merge(wiki, client, **anonymous["params"])
    assert refused["error"]["code"] == anonymous["code"]
    await wiki.login(client, "Admin")
    for case in RECORDED["errors"]:
        answer = await _merge(wiki, client, **case["params"])
        assert (answer["error"]["code"], answer["error"]["info"]) == (
            case["code"],
            case["info"],
        ), case
    assert len(await _history(wiki, client, "MSrc")) == 2
    assert len(await _history(wiki, client, "MDst")) == 1


async def test_partial_then_whole_merge(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await _pages(wiki)
    await wiki.login(client, "Admin")
    partial = RECORDED["partial"]
    params = dict(partial["params"], timestamp=iso(T1))
    answer = await _merge(wiki, client, **params)
    expected = json.loads(json.dumps(partial["response"]).replace('"t1"', json.dumps(iso(T1))))
    assert answer == expected
    source = await _history(wiki, client, "MSrc")
    dest = await _history(wiki, client, "MDst")
    assert len(source) == partial["source_revisions"] and len(dest) == partial["dest_revisions"]
    log = await wiki.api(
        client, action="query", list="logevents", letype="merge", formatversion="2"
    )
    entry = {k: v for k, v in log["query"]["logevents"][0].items() if k in partial["log"]}
    wanted = json.loads(json.dumps(partial["log"]).replace('"t1"', json.dumps(iso(T1))))
    assert entry == wanted

    # The rest: a source with no revisions left becomes a redirect to the destination.
    last_source = source[0]["revid"]
    # The destination's first revision is now T1, the source's remaining one T2: refused.
    overlap = await _merge(wiki, client, **{"from": "MSrc", "to": "MDst"})
    assert overlap["error"]["code"] == "mergehistory-fail-timestamps-overlap"
    await _save(wiki, "MDst2", "later", "20200104000000")
    whole = RECORDED["whole"]
    done = await _merge(wiki, client, **{"from": "MSrc", "to": "MDst2", "reason": "dup"})
    assert done["mergehistory"]["reason"] == "dup", done
    (redirect,) = await _history(wiki, client, "MSrc")
    described = whole["source_revision"]
    assert redirect["slots"]["main"]["content"] == "#REDIRECT [[MDst2]]"
    assert redirect["comment"] == described["comment"].replace("MDst", "MDst2")
    assert redirect["minor"] is described["minor"] and redirect["parentid"] == last_source
    info = await wiki.api(client, action="query", titles="MSrc", prop="info", formatversion="2")
    assert info["query"]["pages"][0].get("redirect") is whole["source_redirect"]
    links = await wiki.api(
        client, action="query", list="backlinks", bltitle="MDst2", formatversion="2"
    )
    assert [p["title"] for p in links["query"]["backlinks"]] == ["MSrc"]
    log = await wiki.api(client, action="query", list="logevents", letype="merge")
    assert log["query"]["logevents"][0]["comment"] == whole["log_comment"].replace("MDst", "MDst2")
    rc = await wiki.api(
        client, action="query", list="recentchanges", rctype="log", rcprop="title|loginfo",
        formatversion="2",
    )  # fmt: skip
    assert rc["query"]["recentchanges"][0]["logtype"] == "merge"
    assert rc["query"]["recentchanges"][0]["title"] == "MSrc"
