"""`Special:UserRights` over HTTP: a bureaucrat adds and removes groups (the API's userrights
change, logged), others only see the groups and are refused when they post; no token, unknown
and hidden users are refused."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio

URL = "/w/index.php?title=Special:UserRights"


async def _groups(wiki: WikiHarness, name: str) -> list[str]:
    account = await wiki.db.read(account_by_name, name)
    assert account is not None
    return list(account.groups)


async def test_bureaucrat_adds_and_removes_groups(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Admin")  # sysop and bureaucrat
    page = (await client.get("/wiki/Special:UserRights/Alice")).text
    assert 'name="wpGroup-sysop"' in page and "Change user groups of Alice" in page
    token = await page_token(client)
    done = await client.post(
        URL, data={"user": "Alice", "wpGroup-sysop": "1", "user-reason": "trusted",
                   "wpEditToken": token},
    )  # fmt: skip
    assert done.status_code == 303
    assert await _groups(wiki, "Alice") == ["sysop"]
    log = (await client.get("/wiki/Special:Log/rights")).text
    assert "changed group membership for" in log and "User:Alice" in log
    cleared = await client.post(URL, data={"user": "Alice", "wpEditToken": token})
    assert cleared.status_code == 303
    assert await _groups(wiki, "Alice") == []


async def test_member_sees_groups_and_is_refused(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Alice")
    page = await client.get("/wiki/Special:UserRights/Robot")
    assert page.status_code == 200
    assert "User groups of Robot" in page.text and "bot" in page.text
    assert 'name="wpGroup-' not in page.text
    posted = await client.post(
        URL, data={"user": "Alice", "wpGroup-sysop": "1", "wpEditToken": await page_token(client)}
    )
    assert posted.status_code == 200 and "Permission error" in posted.text
    assert await _groups(wiki, "Alice") == []


async def test_refusals_for_token_and_unknown_users(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Admin")
    refused = await client.post(URL, data={"user": "Alice", "wpGroup-sysop": "1"})
    assert refused.status_code == 200 and "session hijacking" in refused.text
    assert await _groups(wiki, "Alice") == []
    for name in ("Nobody", "<script>", "#1"):
        unknown = await client.get("/wiki/Special:UserRights", params={"user": name})
        # The form again with `nosuchusershort`, at 200 (as MediaWiki 1.39).
        assert unknown.status_code == 200 and "<script>" not in unknown.text
        assert "There is no user by the name" in unknown.text
        posted = await client.post(
            URL, data={"user": name, "wpEditToken": await page_token(client)}
        )
        assert posted.status_code == 200 and "There is no user by the name" in posted.text
