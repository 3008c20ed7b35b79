"""`Special:EditTags` over HTTP: a user adds and removes a user-defined tag on a revision and on
a log entry (the API's tag change, logged); anonymous readers, foreign posts, undefined and
software-defined tags, suppressed revisions and missing ids are refused; summaries are escaped."""

from __future__ import annotations

import re

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.reads.pages import revision_tags

pytestmark = pytest.mark.anyio

URL = "/w/index.php?title=Special:EditTags"
HOSTILE = '"><img src=x onerror=alert(1)><script>alert(2)</script>'


async def _define_tag(wiki: WikiHarness, name: str) -> None:
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        done = await wiki.post(
            admin, action="managetags", operation="create", tag=name, token=await wiki.csrf(admin)
        )
        assert "error" not in done, done


async def _tags(wiki: WikiHarness, rev_id: int) -> list[str]:
    return (await wiki.db.read(revision_tags, [rev_id])).get(rev_id, [])


async def test_refusals_and_bad_input(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    title = 'Tagged "x" & y'  # a title with what HTML and wikitext escape
    rev = await wiki.edit_page(title, "text", user="Alice", summary=HOSTILE)
    anonymous = await client.get(f"/wiki/Special:EditTags?type=revision&ids={rev}")
    assert anonymous.status_code == 200 and "Permission error" in anonymous.text
    await sign_in(wiki, client, "Alice")
    for query in ("", "?ids=abc", "?ids=999999", "?type=logentry&ids=999999", "?ids[x]=1"):
        missing = await client.get("/wiki/Special:EditTags" + query)
        assert missing.status_code == 200, query
        assert "You have either not specified any target revision" in missing.text
    await _define_tag(wiki, "reviewed")
    form = await client.get(
        "/wiki/Special:EditTags", params={"type": "revision", "target": title, "ids": str(rev)}
    )
    assert form.status_code == 200
    assert ">Tagged &#34;x&#34; &amp; y</a>:" in form.text
    assert "<script>alert(2)" not in form.text and "&lt;script&gt;alert(2)" in form.text
    assert '<option value="reviewed">reviewed</option>' in form.text
    assert "Apply changes to this revision" in form.text
    chosen = {"type": "revision", "ids": str(rev), "wpTagList[]": "reviewed", "wpSubmit": "1"}
    refused = await client.post(URL, data=chosen)
    assert refused.status_code == 200 and "session hijacking" in refused.text
    assert await _tags(wiki, rev) == []
    token = await page_token(client)
    nothing = await client.post(URL, data={**chosen, "wpTagList[]": [], "wpEditToken": token})
    # SpecialEditTags' answer: the form again under "Action failed", at 200 (as MediaWiki 1.39).
    assert nothing.status_code == 200 and "Please select at least one tag" in nothing.text
    undefined = await client.post(
        URL, data={**chosen, "wpTagList[]": "<b>made-up</b>", "wpEditToken": token}
    )
    assert undefined.status_code == 200 and "is not allowed to be manually added" in undefined.text
    assert "<b>made-up</b>" not in undefined.text and await _tags(wiki, rev) == []

    def suppress(conn: Conn) -> None:
        R = schema.revision
        conn.execute(sa.update(R).where(R.c.rev_id == rev).values(rev_deleted=1 | 8))

    await wiki.db.write(suppress)
    hidden = await client.get(f"/wiki/Special:EditTags?type=revision&ids={rev}")
    assert hidden.status_code == 200 and "Permission error" in hidden.text
    assert "alert" not in hidden.text


async def test_add_and_remove_tags(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    first = await wiki.edit_page("Tagged", "one", user="Alice", summary="first")
    second = await wiki.edit_page("Tagged", "two", user="Alice", summary="second")
    await _define_tag(wiki, "reviewed")
    await sign_in(wiki, client, "Alice")
    token = await page_token(client)
    one = {"type": "revision", "ids": str(first), "wpSubmit": "1", "wpEditToken": token}
    added = await client.post(URL, data={**one, "wpTagList[]": "reviewed", "wpReason": HOSTILE})
    assert added.status_code == 200, added.text
    assert "The changes were applied." in added.text and "Action complete" in added.text
    assert await _tags(wiki, first) == ["reviewed"]
    log = (await client.get("/wiki/Special:Log/tag")).text
    assert "reviewed" in log and "<script>alert(2)" not in log
    # Both revisions at once: the removal checkboxes list the tags they carry.
    both = await client.get(f"/wiki/Special:EditTags?type=revision&ids={first},{second}")
    assert "Apply changes to 2 revisions" in both.text
    assert 'name="wpTagsToRemove[]" value="reviewed"' in both.text
    removed = await client.post(
        URL, data={"type": "revision", "ids": f"{first},{second}", "wpRemoveAllTags": "1",
                   "wpSubmit": "1", "wpEditToken": token},
    )  # fmt: skip
    assert removed.status_code == 200 and await _tags(wiki, first) == []

    # A tag the software sets may not be taken off by hand.
    def software_tag(conn: Conn) -> None:
        CTD = schema.change_tag_def
        named = CTD.c.ctd_name == "mw-reverted"
        if conn.scalar(sa.select(CTD.c.ctd_id).where(named)) is None:
            conn.execute(sa.insert(CTD).values(ctd_name="mw-reverted", ctd_user_defined=False))
        tag_id = conn.scalar(sa.select(CTD.c.ctd_id).where(named))
        conn.execute(sa.insert(schema.change_tag).values(ct_rev_id=second, ct_tag_id=tag_id))

    await wiki.db.write(software_tag)
    kept = await client.post(
        URL, data={"type": "revision", "ids": str(second), "wpSubmit": "1", "wpEditToken": token}
    )
    assert (
        kept.status_code == 200
        and 'The tag "mw-reverted" is not allowed to be removed.' in kept.text
    )
    assert await _tags(wiki, second) == ["mw-reverted"]
    # A log entry: the tag log's own entry.
    ids = re.findall(r'data-mw-logid="(\d+)"', log)
    assert ids
    form = await client.get(f"/wiki/Special:EditTags?type=logentry&ids={ids[0]}")
    assert form.status_code == 200 and "Selected log event" in form.text
    tagged = await client.post(
        URL, data={"type": "logentry", "ids": ids[0], "wpTagList[]": "reviewed", "wpSubmit": "1",
                   "wpEditToken": token},
    )  # fmt: skip
    assert tagged.status_code == 200 and "The changes were applied." in tagged.text
    assert "reviewed" in tagged.text
