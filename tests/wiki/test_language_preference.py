"""The `language` preference is a choice among the languages the wiki offers (the supported ones
of the one list of known languages): Special:Preferences shows them as MediaWiki does and saves
one, `action=options` refuses any other value as 1.39 does, and the API's `uselang=user` follows
the choice."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

from atrium.wiki.messages.language_facts import known_languages, user_languages
from atrium.wiki.reads.users import account_by_name, options

pytestmark = pytest.mark.anyio

URL = "/w/index.php?title=Special:Preferences"


async def _language(wiki: WikiHarness, name: str) -> object:
    account = await wiki.db.read(account_by_name, name)
    assert account is not None
    return (await wiki.db.read(options, account.id)).get("language")


def test_choices_are_the_supported_known_languages() -> None:
    choices = user_languages()
    known = known_languages()
    assert set(choices) <= set(known)
    assert choices["de-formal"] == "de-x-formal - Deutsch (Sie-Form)"
    assert choices["en"] == "en - English"
    # Known, but with no interface messages of its own in 1.39: not offered.
    assert "be-x-old" in known and "be-x-old" not in choices


async def test_preferences_page_saves_a_language(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Alice")
    page = (await client.get("/wiki/Special:Preferences")).text
    assert '<option value="en" selected>en - English</option>' in page
    assert '<option value="fr">fr - français</option>' in page
    done = await client.post(
        URL, data={"wplanguage": "fr", "wpEditToken": await page_token(client)}
    )
    assert done.status_code == 303
    assert await _language(wiki, "Alice") == "fr"
    shown = (await client.get("/wiki/Special:Preferences?success=1")).text
    assert '<option value="fr" selected>fr - français</option>' in shown
    answer = await wiki.api(client, action="query", meta="userinfo", uselang="user",
                            responselanginfo="1", formatversion="2")  # fmt: skip
    assert answer["uselang"] == "fr"


@pytest.mark.parametrize("value", ["xx-bogus", "be-x-old", "<script>", "en\nfr"])
async def test_preferences_page_refuses_other_values(
    wiki: WikiHarness, client: httpx.AsyncClient, value: str
) -> None:
    await sign_in(wiki, client, "Alice")
    before = await _language(wiki, "Alice")
    response = await client.post(
        URL, data={"wplanguage": value, "wpEditToken": await page_token(client)}
    )
    # HTMLForm shows itself again with the field's error, at 200 as 1.39 does.
    assert response.status_code == 200
    assert "The value you specified is not a valid option." in response.text
    assert "<script>" not in response.text
    assert await _language(wiki, "Alice") == before


async def test_preferences_page_needs_the_token(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Alice")
    refused = await client.post(URL, data={"wplanguage": "de"})
    assert refused.status_code == 200 and "session hijacking" in refused.text
    assert await _language(wiki, "Alice") != "de"


async def test_options_refuses_a_language_not_offered(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """As 1.39 answered `change=language=xx-bogus`: a warning, success, and nothing saved."""
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    done = await wiki.post(client, action="options", change="language=xx-bogus", token=token,
                           errorformat="raw", formatversion="2")  # fmt: skip
    assert done["options"] == "success"
    assert done["warnings"] == [
        {
            "code": "validationfailed",
            "key": "apiwarn-validationfailed",
            "params": ["language", {"message": {"key": "htmlform-select-badoption", "params": []}}],
            "module": "options",
        }
    ]
    german = await wiki.post(client, action="options", change="language=be-x-old", token=token,
                             errorformat="plaintext", uselang="de", formatversion="2")  # fmt: skip
    assert german["warnings"][0]["text"] == (
        'Validierungsfehler für "language": Der angegebene Wert ist keine gültige Option.'
    )
    assert await _language(wiki, "Admin") in (None, "en")
    done = await wiki.post(client, action="options", change="language=sr-ec", token=token)
    assert done == {"options": "success"}
    assert await _language(wiki, "Admin") == "sr-ec"
