"""The refusals the Special page crawl never meets answer with MediaWiki 1.39's status
(`data/mw139_refusal_statuses.json`, recorded by tools/capture_refusal_statuses.py): a blocked
user's edit form and saved edit; forms posted with a wrong token; and a private wiki's pages for
an anonymous reader, which show nothing of the page. What MediaWiki's page said (the block, the
session failure, "Login required") ours says too; where HTMLForm shows itself again silently,
ours adds the session failure to it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.test_private_wiki import private_client
from tests.wiki.web_special_seed import page_token, sign_in

pytestmark = pytest.mark.anyio

__all__ = ["private_client"]

RECORDED = json.loads((Path(__file__).parent / "data" / "mw139_refusal_statuses.json").read_text())[
    "cases"
]
PAGE = "Refusal page"
CONTENT = "A page the refusals are about."
BAD = {"wpEditToken": "0123456789abcdef+\\"}


def _same(name: str, response: httpx.Response) -> tuple[str, int, int, bool, bool]:
    """What differs from MediaWiki's answer: the status, or whether it said the same."""
    fact = RECORDED[name]
    said = str(fact["says"]).lower() in response.text.lower()
    return name, response.status_code, int(fact["status"]), said, bool(fact["said"])


def _check(seen: list[tuple[str, int, int, bool, bool]]) -> None:
    differing = [s for s in seen if s[1] != s[2] or (s[4] and not s[3])]
    assert differing == [], "(case, ours, MediaWiki's, we said, it said): " + repr(differing)


async def test_blocked_user_answers(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page(PAGE, CONTENT)
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        done = await wiki.post(admin, action="block", user="Alice", expiry="1 day",
                               reason="capture", token=await wiki.csrf(admin))  # fmt: skip
        assert "block" in done, done
    await sign_in(wiki, client, "Alice")
    token = await page_token(client)
    index = "/w/index.php"
    seen = [
        _same("blocked: edit form", await client.get(index, params={"title": PAGE,
                                                                      "action": "edit"})),
        _same("blocked: edit saved", await client.post(
            index, params={"title": PAGE, "action": "submit"},
            data={"wpTextbox1": "x", "wpEditToken": token, "wpSave": "1"})),
    ]  # fmt: skip
    _check(seen)
    raw = await client.get(index, params={"title": PAGE, "action": "raw"})
    assert raw.text == CONTENT


async def test_wrong_token_answers(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    rev = await wiki.edit_page(PAGE, CONTENT)
    await sign_in(wiki, client, "Admin")
    index = "/w/index.php"
    posts = {
        "bad token: edit saved": (
            {"title": PAGE, "action": "submit"}, {"wpTextbox1": "x", "wpSave": "1"},
        ),
        "bad token: delete": ({"title": PAGE, "action": "delete"}, {"wpReason": "x"}),
        "bad token: protect": (
            {"title": PAGE, "action": "protect"}, {"mwProtect-level-edit": "sysop"},
        ),
        "bad token: Special:Block": (
            {"title": "Special:Block"}, {"wpTarget": "Alice", "wpExpiry": "1 day"},
        ),
        "bad token: Special:RevisionDelete": (
            {"title": "Special:RevisionDelete", "action": "submit"},
            {"type": "revision", "target": PAGE, "ids": str(rev), "wpHideComment": "1",
             "wpSubmit": "1"},
        ),
    }  # fmt: skip
    seen = [
        _same(name, await client.post(index, params=query, data={**form, **BAD}))
        for name, (query, form) in posts.items()
    ]
    async with wiki.client() as anonymous:
        login = await anonymous.post(
            index, params={"title": "Special:UserLogin"},
            data={"wpName": "Admin", "wpPassword": "x", "wpLoginToken": "bad+\\",
                  "wploginattempt": "1"},
        )  # fmt: skip
        seen.append(_same("bad token: Special:UserLogin", login))
    _check(seen)
    # Nothing was changed by any of them.
    assert (await client.get(index, params={"title": PAGE, "action": "raw"})).text == CONTENT
    answer = await wiki.api(client, action="query", list="blocks", bkusers="Alice")
    assert answer["query"]["blocks"] == []


async def test_private_wiki_answers(wiki: WikiHarness, private_client: httpx.AsyncClient) -> None:
    await wiki.edit_page(PAGE, CONTENT)
    seen = []
    for name, path in (
        ("private: page", f"/wiki/{PAGE.replace(' ', '_')}"),
        ("private: history", f"/w/index.php?title={PAGE}&action=history"),
        ("private: raw", f"/w/index.php?title={PAGE}&action=raw"),
        ("private: Special:RecentChanges", "/wiki/Special:RecentChanges"),
    ):
        response = await private_client.get(path)
        seen.append(_same(name, response))
        shown = re.sub(r'href="[^"]*"', "", response.text)
        assert CONTENT not in response.text and "Refusal" not in shown, path
        assert "private" in response.headers.get("cache-control", ""), path
    _check(seen)
    api = await private_client.get(
        "/w/api.php", params={"action": "query", "titles": PAGE, "format": "json"}
    )
    assert api.status_code == RECORDED["private: api"]["status"]
    assert api.json()["error"]["code"] == "readapidenied"
