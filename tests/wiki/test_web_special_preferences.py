"""`Special:Preferences` over HTTP: the time zone and email are saved (the email only with the
password), bad values and a missing token change nothing, and anonymous readers are asked to
log in."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import PASSWORDS, WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

from atrium.wiki.reads.users import account_by_name, options

pytestmark = pytest.mark.anyio

URL = "/w/index.php?title=Special:Preferences"


async def _state(wiki: WikiHarness) -> tuple[str, str]:
    account = await wiki.db.read(account_by_name, "Alice")
    assert account is not None
    prefs = await wiki.db.read(options, account.id)
    return account.email, str(prefs.get("timecorrection"))


async def test_saves_time_zone_and_email(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await sign_in(wiki, client, "Alice")
    page = (await client.get("/wiki/Special:Preferences")).text
    assert 'href="/wiki/Special:ChangePassword"' in page and 'id="wptimecorrection"' in page
    done = await client.post(
        URL,
        data={"wptimecorrection": "Asia/Tokyo", "wpEmailAddress": "alice@example.org",
              "wpPassword": PASSWORDS["Alice"], "wpEditToken": await page_token(client)},
    )  # fmt: skip
    assert done.status_code == 303
    assert await _state(wiki) == ("alice@example.org", "ZoneInfo|540|Asia/Tokyo")
    shown = (await client.get("/wiki/Special:Preferences?success=1")).text
    assert "Your preferences have been saved." in shown
    assert '<option value="Asia/Tokyo" selected>' in shown


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"wptimecorrection": "Mars/Olympus"}, "time zone is not valid"),
        ({"wpEmailAddress": "not an address"}, "cannot be accepted"),
        ({"wpEmailAddress": "a@b.c", "wpPassword": "wrong"}, "password you entered is incorrect"),
    ],
)
async def test_bad_values_change_nothing(
    wiki: WikiHarness, client: httpx.AsyncClient, fields: dict[str, str], says: str
) -> None:
    await sign_in(wiki, client, "Alice")
    before = await _state(wiki)
    response = await client.post(URL, data=fields | {"wpEditToken": await page_token(client)})
    # HTMLForm's answer: the form again with the error, at 200 (as MediaWiki 1.39).
    assert response.status_code == 200 and says in response.text
    assert await _state(wiki) == before


async def test_token_and_sign_in_are_needed(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    anonymous = await client.get("/wiki/Special:Preferences")
    assert anonymous.status_code == 200 and "Not logged in" in anonymous.text
    await sign_in(wiki, client, "Alice")
    before = await _state(wiki)
    refused = await client.post(URL, data={"wptimecorrection": "Asia/Tokyo"})
    assert refused.status_code == 200 and "session hijacking" in refused.text
    assert await _state(wiki) == before
