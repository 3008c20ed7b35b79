"""`Special:MergeHistory` over HTTP: an administrator picks two pages, sees the source's
revisions older than the destination, and merges them up to a point (the API's mergehistory
change, logged); readers without `mergehistory` are refused, bad titles get MediaWiki's errors,
a post without the session's token changes nothing, hidden authors stay hidden and hostile
summaries are escaped."""

from __future__ import annotations

import re

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes.pages import Editor, save_revision
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio

URL = "/w/index.php?title=Special:MergeHistory"
HOSTILE = '"><img src=x onerror=alert(1)><script>alert(2)</script>'
SOURCE = 'Old "draft" & co'  # a title with what HTML and wikitext escape


async def _save(wiki: WikiHarness, title: str, text: str, ts: str, summary: str = "") -> int:
    alice = await wiki.db.read(account_by_name, "Alice")
    assert alice is not None
    saved = await wiki.db.write(
        lambda conn: save_revision(
            conn, wiki.site, wiki.site.parser.parse(title), text, Editor(alice.id, "Alice"),
            comment=summary, timestamp=ts,
        )
    )  # fmt: skip
    return int(saved.rev_id)


async def _page_revisions(wiki: WikiHarness, title: str) -> list[int]:
    def read(conn: Conn) -> list[int]:
        R, P = schema.revision, schema.page
        rows = conn.all(
            sa.select(R.c.rev_id).join(P, P.c.page_id == R.c.rev_page)
            .where(P.c.page_namespace == 0, P.c.page_title == title.replace(" ", "_"))
            .order_by(R.c.rev_id)
        )  # fmt: skip
        return [int(r["rev_id"]) for r in rows]

    return await wiki.db.read(read)


async def test_refused_without_the_right(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    anonymous = await client.get("/wiki/Special:MergeHistory")
    assert anonymous.status_code == 200 and "Permission error" in anonymous.text
    posted = await client.post(URL, data={"targetID": "1", "destID": "2"})
    assert posted.status_code == 200 and "Permission error" in posted.text
    await sign_in(wiki, client, "Alice")
    member = await client.get("/wiki/Special:MergeHistory")
    assert member.status_code == 200 and "merge the history of this page" in member.text


async def test_bad_input_and_empty_states(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await sign_in(wiki, client, "Admin")
    form = await client.get("/wiki/Special:MergeHistory")
    assert form.status_code == 200
    assert "Merge revisions of two pages:" in form.text and 'name="dest"' in form.text
    assert 'id="merge"' not in form.text
    bad = await client.get(
        "/wiki/Special:MergeHistory", params={"submitted": "1", "target": "", "dest": "Nope <x>"}
    )
    assert bad.status_code == 200
    assert "Source page must be a valid title." in bad.text
    assert "Destination page must be a valid title." in bad.text and "<x>" not in bad.text
    await _save(wiki, "Lonely", "text", "20200101000000")
    same = await client.get(
        "/wiki/Special:MergeHistory",
        params={"submitted": "1", "target": "Lonely", "dest": "Lonely"},
    )
    assert "Source and destination pages cannot be the same" in same.text
    missing = await client.get(
        "/wiki/Special:MergeHistory", params={"submitted": "1", "target": "Lonely", "dest": "Ghost"}
    )
    assert "Destination page Ghost does not exist." in missing.text
    await _save(wiki, "Older", "text", "20190101000000")
    none = await client.get(
        "/wiki/Special:MergeHistory", params={"submitted": "1", "target": "Lonely", "dest": "Older"}
    )
    assert (
        "No revisions can be merged." in none.text and 'name="mergepoint" value="2' not in none.text
    )
    forged = await client.post(
        URL, data={"targetID": "999999", "destID": "abc", "wpEditToken": await page_token(client)}
    )
    assert forged.status_code == 200 and "Unable to perform history merge" in forged.text


async def test_merge_up_to_a_point_then_the_rest(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    first = await _save(wiki, SOURCE, "one", "20200101000000", summary=HOSTILE)
    second = await _save(wiki, SOURCE, "two", "20200102000000", summary="second")
    await _save(wiki, "New page", "three", "20210101000000")

    def hide_author(conn: Conn) -> None:
        R = schema.revision
        conn.execute(sa.update(R).where(R.c.rev_id == second).values(rev_deleted=4 | 8))

    await wiki.db.write(hide_author)
    await sign_in(wiki, client, "Admin")
    listed = await client.get(
        "/wiki/Special:MergeHistory",
        params={"submitted": "1", "target": SOURCE, "dest": "New page"},
    )
    assert listed.status_code == 200
    assert ">Old &#34;draft&#34; &amp; co</a> can be merged into" in listed.text
    assert listed.text.count('name="mergepoint" value="2020') == 2
    assert "<script>alert(2)" not in listed.text and "&lt;script&gt;alert(2)" in listed.text
    assert "(username removed)" in listed.text  # suppressed: a sysop may not see it
    assert listed.text.count(">Alice</bdi>") == 1
    ids = re.findall(r'name="(targetID|destID)" value="(\d+)"', listed.text)
    fields = dict(ids)
    # No token: refused, nothing moves.
    refused = await client.post(URL, data={**fields, "mergepoint": "20200101000000"})
    assert refused.status_code == 200 and "session hijacking" in refused.text
    assert await _page_revisions(wiki, SOURCE) == [first, second]
    token = await page_token(client)
    done = await client.post(
        URL, data={**fields, "mergepoint": "20200101000000", "wpComment": HOSTILE,
                   "wpEditToken": token},
    )  # fmt: skip
    assert done.status_code == 200, done.text
    assert "1 revision of" in done.text and "was merged into" in done.text
    assert ">Old &#34;draft&#34; &amp; co</a> was merged" in done.text
    assert first in await _page_revisions(wiki, "New page")
    assert await _page_revisions(wiki, SOURCE) == [second]
    # What is left is newer than the destination's history now: nothing can be merged.
    overlap = await client.post(URL, data={**fields, "wpEditToken": token})
    assert overlap.status_code == 200 and "Unable to perform history merge" in overlap.text
    assert await _page_revisions(wiki, SOURCE) == [second]
    log = (await client.get("/wiki/Special:Log/merge")).text
    assert "merged" in log and "<script>alert(2)" not in log
    # The source's merge log is shown under its (now empty) list.
    after = await client.get(
        "/wiki/Special:MergeHistory",
        params={"submitted": "1", "target": SOURCE, "dest": "New page"},
    )
    assert "No revisions can be merged." in after.text
    assert "<h2>Merge log</h2>" in after.text and 'class="mw-logline-merge"' in after.text
    assert "<script>alert(2)" not in after.text


async def test_merge_everything_older_leaves_a_redirect(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    early = [await _save(wiki, "Draft two", f"v{n}", f"2018010{n}000000") for n in (1, 2)]
    await _save(wiki, "Target two", "later", "20210101000000")
    await sign_in(wiki, client, "Admin")
    listed = await client.get(
        "/wiki/Special:MergeHistory",
        params={"submitted": "1", "target": "Draft two", "dest": "Target two"},
    )
    fields = dict(re.findall(r'name="(targetID|destID)" value="(\d+)"', listed.text))
    # No point chosen: every revision older than the destination moves.
    done = await client.post(URL, data={**fields, "wpEditToken": await page_token(client)})
    assert done.status_code == 200 and "2 revisions of" in done.text and "were merged" in done.text
    assert set(early) <= set(await _page_revisions(wiki, "Target two"))
    redirect = await client.get("/w/index.php?title=Draft_two&action=raw")
    assert "#REDIRECT [[Target two]]" in redirect.text
