"""meta=allmessages knows MediaWiki core's English messages (what pywikibot asks for)."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


async def test_core_messages(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    names = "comma-separator|semicolon-separator|colon-separator|word-separator|and|pipe-separator"
    data = await wiki.api(client, action="query", meta="allmessages", ammessages=names)
    got = {m["name"]: m["*"] for m in data["query"]["allmessages"]}
    assert got == {
        "comma-separator": ", ",
        "semicolon-separator": "; ",
        "colon-separator": ": ",
        "word-separator": " ",
        "and": " and",
        "pipe-separator": " | ",
    }
    everything = await wiki.api(
        client, action="query", meta="allmessages", amprefix="timezone", amlimit="max"
    )
    assert len(everything["query"]["allmessages"]) > 5
    missing = await wiki.api(client, action="query", meta="allmessages", ammessages="no-such-msg-x")
    assert missing["query"]["allmessages"][0]["missing"] == ""


async def test_local_override_wins(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("MediaWiki:Comma-separator", "; ")
    data = await wiki.api(client, action="query", meta="allmessages", ammessages="comma-separator")
    assert data["query"]["allmessages"][0]["*"] == "; "
