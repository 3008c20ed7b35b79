"""action=tag on a recent change (rcid) or revision: the tags show in list=recentchanges."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


async def _rc_tags(wiki: WikiHarness, client: httpx.AsyncClient) -> tuple[int, list[str]]:
    data = await wiki.api(
        client, action="query", list="recentchanges", rctitle="Tagged", rcprop="ids|tags"
    )
    change = data["query"]["recentchanges"][0]
    return int(change["rcid"]), change["tags"]


async def test_tags_by_rcid_and_revid_show_in_recentchanges(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    saved = await wiki.post(client, action="edit", title="Tagged", text="x", token=token)
    rev = saved["edit"]["newrevid"]
    for tag in ("foo-bar", "foo-bar-baz", "by-rev"):
        await wiki.post(client, action="managetags", operation="create", tag=tag, token=token)
    rcid, tags = await _rc_tags(wiki, client)
    assert tags == []
    done = await wiki.post(
        client, action="tag", rcid=str(rcid), add="foo-bar|foo-bar-baz", reason="r", token=token
    )
    assert done["tag"][0]["status"] == "success", done
    assert (await _rc_tags(wiki, client))[1] == ["foo-bar", "foo-bar-baz"]
    await wiki.post(client, action="tag", rcid=str(rcid), remove="foo-bar", token=token)
    assert (await _rc_tags(wiki, client))[1] == ["foo-bar-baz"]
    await wiki.post(client, action="tag", revid=str(rev), add="by-rev", token=token)
    assert sorted((await _rc_tags(wiki, client))[1]) == ["by-rev", "foo-bar-baz"]
    revs = await wiki.api(client, action="query", revids=str(rev), prop="revisions", rvprop="tags")
    assert "by-rev" in next(iter(revs["query"]["pages"].values()))["revisions"][0]["tags"]
    missing = await wiki.post(client, action="tag", rcid="999999", add="foo-bar", token=token)
    assert missing["tag"][0]["status"] == "error"
