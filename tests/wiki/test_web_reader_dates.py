"""Times in the reader's date format and time zone (`Special:Preferences`), and the other
preferences the pages follow: the responsive skin and the defaults of recent changes and the
watchlist; the refusals of the form (no sign-in, no token, bad values)."""

from __future__ import annotations

import re

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit, page_token, sign_in

from atrium.wiki.reads.users import account_by_name, options
from atrium.wiki.web.dates import DateStyle

pytestmark = pytest.mark.anyio

PREFS = "/w/index.php?title=Special:Preferences"


def test_date_styles() -> None:
    ts = "20261128171350"
    assert DateStyle().format(ts) == "17:13, 28 November 2026"
    assert DateStyle("mdy").format(ts) == "17:13, November 28, 2026"
    assert DateStyle("ymd").format(ts) == "17:13, 2026 November 28"
    assert DateStyle("ISO 8601").format(ts) == "2026-11-28T17:13:50"
    tokyo = DateStyle("dmy", "ZoneInfo|540|Asia/Tokyo")
    assert tokyo.format(ts) == "02:13, 29 November 2026"
    assert DateStyle("dmy", "Offset|-90").format(ts) == "15:43, 28 November 2026"
    for broken in ("ZoneInfo|x|Nowhere/Else", "Offset|99999", "nonsense"):
        assert DateStyle("dmy", broken).format(ts) == "17:13, 28 November 2026"
    assert DateStyle().format("garbage") == "garbage"


def _form(token: str, **changes: str) -> dict[str, str]:
    values = {
        "wpFormIdentifier": "preferences", "wpEditToken": token, "wpdate": "default",
        "wptimecorrection": "", "wpEmailAddress": "", "wpskin-responsive": "1",
        "wpwatchlistdays": "7", "wpwllimit": "250", "wprcdays": "7", "wprclimit": "50",
    }  # fmt: skip
    return values | changes


async def _prefs(wiki: WikiHarness, name: str) -> dict[str, object]:
    account = await wiki.db.read(account_by_name, name)
    assert account is not None
    return dict(await wiki.db.read(options, account.id))


async def test_times_follow_the_preferences(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Clock", "one")
    await edit(wiki, "Clock", "two", minor=True)
    await sign_in(wiki, client, "Alice")
    token = await page_token(client)
    saved = await client.post(
        PREFS,
        data=_form(token, wpdate="ISO 8601", wptimecorrection="Asia/Tokyo", wprclimit="1",
                   wphideminor="1"),
    )  # fmt: skip
    assert saved.status_code == 303
    prefs = await _prefs(wiki, "Alice")
    assert prefs["date"] == "ISO 8601" and str(prefs["timecorrection"]).endswith("Asia/Tokyo")
    assert prefs["skin-responsive"] == "1" and prefs["watchdefault"] == "0"
    history = (await client.get("/w/index.php?title=Clock&action=history")).text
    assert re.search(r'class="mw-changeslist-date"[^>]*>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d<', history)
    changes = (await client.get("/wiki/Special:RecentChanges")).text
    assert changes.count('class="mw-changeslist-date"') == 1
    assert "mw-changeslist-minor" not in changes
    # Anonymous readers keep the wiki's format.
    async with wiki.client() as anonymous:
        plain = (await anonymous.get("/w/index.php?title=Clock&action=history")).text
        assert re.search(r">\d\d:\d\d, \d+ [A-Z][a-z]+ \d{4}<", plain)
    await client.post(PREFS, data=_form(token, **{"wpskin-responsive": ""}))
    assert 'name="viewport"' not in (await client.get("/wiki/Clock")).text


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [("wpdate", "<script>", "not a valid option"), ("wprclimit", "0", "below the minimum of 1"),
     ("wpwatchlistdays", "9" * 20, "above the maximum of 90"),
     ("wpwllimit", "-5", "below the minimum of 1"), ("wprcdays", "x", "not an integer")],
)  # fmt: skip
async def test_bad_values_are_refused(
    wiki: WikiHarness, client: httpx.AsyncClient, field: str, value: str, says: str
) -> None:
    await sign_in(wiki, client, "Alice")
    before = await _prefs(wiki, "Alice")
    refused = await client.post(PREFS, data=_form(await page_token(client), **{field: value}))
    # HTMLForm's answer: the form again with the error, at 200 (as MediaWiki 1.39).
    assert refused.status_code == 200 and says in refused.text
    assert "<script>" not in refused.text
    assert await _prefs(wiki, "Alice") == before


async def test_anonymous_and_tokenless_posts_are_refused(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    anonymous = await client.post(PREFS, data=_form("+\\", wpdate="mdy"))
    assert anonymous.status_code == 200 and "Not logged in" in anonymous.text
    await sign_in(wiki, client, "Alice")
    refused = await client.post(PREFS, data=_form("nonsense", wpdate="mdy"))
    assert refused.status_code == 200 and "session hijacking" in refused.text
    assert (await _prefs(wiki, "Alice"))["date"] == "default"
