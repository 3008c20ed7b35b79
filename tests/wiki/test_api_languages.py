"""The API's messages in `uselang`/`errorlang` (de, fr, fallbacks) and `responselanginfo`: shapes
and texts as MediaWiki 1.39 answers them, and every message key of the source in the store."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.reference import reference_path, skip_without
from tests.wiki.conftest import WikiHarness

from atrium.wiki.messages import messages as msg
from atrium.wiki.messages.language import language

pytestmark = pytest.mark.anyio

SAMPLES = reference_path("mediawiki-samples")
MW_HOST = "http://127.0.0.1:8181/w/api.php"
OUR_HOST = "http://127.0.0.1:8080/w/api.php"
NS = "{http://www.mediawiki.org/xml/export-0.11/}"


def _sample(name: str) -> tuple[dict[str, Any], Any]:
    case = json.loads((SAMPLES / "_index.json").read_text())[name]
    body = json.loads((SAMPLES / f"{name}.json").read_text().replace(MW_HOST, OUR_HOST))
    return case, body


@skip_without("mediawiki-samples")
@pytest.mark.parametrize(
    "name",
    [
        "err-badvalue-uselang-de-bc",
        "err-badvalue-errorformat-plaintext-uselang-de",
        "err-badvalue-errorformat-plaintext-errorlang-fr",
    ],
)
async def test_language_samples(client: httpx.AsyncClient, name: str) -> None:
    case, expected = _sample(name)
    response = await client.get("/w/api.php", params=case["params"])
    assert response.headers["mediawiki-api-error"] == case["mediawiki_api_error"]
    assert response.json() == expected


@skip_without("mediawiki-samples")
async def test_warnings_in_german_wikitext(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    case, expected = _sample("warn-multi-wikitext-uselang-de")
    data = (await client.get("/w/api.php", params=case["params"])).json()
    assert data["warnings"] == expected["warnings"]  # unrecognizedparams stays English


@skip_without("mediawiki-samples")
@pytest.mark.parametrize("name", ["misc-uselang-bogus-langinfo", "misc-uselang-content-langinfo"])
async def test_responselanginfo_samples(client: httpx.AsyncClient, name: str) -> None:
    case, expected = _sample(name)
    data = (await client.get("/w/api.php", params=case["params"])).json()
    assert (data["uselang"], data["errorlang"]) == (expected["uselang"], expected["errorlang"])


async def test_error_language_rules(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    base = {"action": "query", "titles": "A", "pageids": "1", "formatversion": "2"}
    texts = {}
    for errorformat in ("plaintext", "wikitext", "html"):
        data = await wiki.api(client, **base, errorformat=errorformat, uselang="fr")
        texts[errorformat] = data["errors"][0]["text" if errorformat != "html" else "html"]
    # MediaWiki 1.39 answers, measured on the reference wiki:
    assert texts["plaintext"] == 'Le paramètre "pageids" ne peut pas être utilisé avec "titles".'
    assert texts["wikitext"] == (
        "Le paramètre <kbd>pageids</kbd> ne peut pas être utilisé avec <kbd>titles</kbd>."
    )
    assert texts["html"] == texts["wikitext"]
    raw = await wiki.api(client, **base, errorformat="raw", uselang="fr")
    assert raw["errors"][0]["key"] == "apierror-invalidparammix-cannotusewith"
    assert raw["errors"][0]["params"] == ["pageids", "titles"]
    # de-at falls back to de; an unknown code to English; errorlang wins over uselang.
    de_at = await wiki.api(client, **base, errorformat="plaintext", uselang="de-AT")
    # German lacks this key: the text stays English, the docref is German (as MediaWiki).
    assert de_at["errors"][0]["text"].startswith('The "pageids" parameter cannot')
    assert de_at["docref"].startswith(f"Siehe {OUR_HOST} zur Verwendung der API.")
    bogus = await wiki.api(
        client, **base, errorformat="plaintext", uselang="xx-bogus", responselanginfo="1"
    )
    assert bogus["errors"][0]["text"].startswith('The "pageids" parameter cannot')
    assert (bogus["uselang"], bogus["errorlang"]) == ("xx-bogus", "xx-bogus")
    mixed = await wiki.api(
        client, **base, errorformat="plaintext", uselang="de", errorlang="fr", responselanginfo="1"
    )
    assert mixed["errors"][0]["text"].startswith("Le paramètre")
    assert (mixed["uselang"], mixed["errorlang"]) == ("de", "fr")
    # bc stays English whatever uselang says.
    bc = await wiki.api(client, **base, uselang="de")
    assert bc["error"]["info"] == 'The "pageids" parameter cannot be used with "titles".'


async def test_uselang_user_is_the_callers_preference(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Alice")
    token = await wiki.csrf(client)
    saved = await wiki.post(client, action="options", change="language=de", token=token)
    assert saved["options"] == "success"
    data = await wiki.api(
        client, action="query", list="allpages", apfilterredir="x", errorformat="plaintext"
    )
    # formatversion=1: the text is the error's content value, `*`.
    assert data["errors"][0]["*"] == "Nicht erkannter Wert für den Parameter „apfilterredir“: x."
    content = await wiki.api(
        client,
        action="query",
        list="allpages",
        apfilterredir="x",
        errorformat="plaintext",
        uselang="content",
    )
    assert content["errors"][0]["*"] == 'Unrecognized value for parameter "apfilterredir": x.'


def test_message_rendering_rules() -> None:
    limit = msg.outofrange("aplimit", "9000", 1, 5000, 5000, 5000)
    assert (
        limit.render("de")
        == "Der Wert „9000“ für den Parameter „aplimit“ muss zwischen 1 und 5.000 liegen."
    )
    assert limit.render("fr").endswith("doit être entre 1 et 5\u00a0000.")
    assert limit.text == 'The value "9000" for parameter "aplimit" must be between 1 and 5,000.'
    names = msg.unrecognized_params({0: "a"})
    assert names.render("fr") == "Paramètre non reconnu\u202f: a."  # fr: one for 0 and 1
    assert (
        msg.unrecognized_params({0: "a", 1: "b"}).render("de") == "Unrecognized parameters: a, b."
    )
    mix = msg.invalidparammix(["bltitle", "blpageid"])
    assert mix.render("de", msg.WIKITEXT) == (
        "The parameters <var>bltitle</var> und <var>blpageid</var> can not be used together."
    )
    assert mix.render("de") == 'The parameters "bltitle" und "blpageid" can not be used together.'
    three = msg.missing_one_of(["a", "b", "c"])
    assert three.text == 'One of the parameters "a", "b" and "c" is required.'
    assert msg.api("apierror-maxlag-generic", -1).text == (
        "Waiting for a database server: -1 second lagged."
    )
    nested = msg.api("apierror-mustbeloggedin", msg.message("action-editmyoptions"))
    assert nested.render("en") == "You must be logged in to edit your preferences."
    # {{int:key}} is another message of the same language.
    rolled = msg.api("alreadyrolled", "Apple", "Bob", "Admin")
    assert "([[User talk:Bob|talk]] | [[Special:Contributions/Bob|contribs]])" in rolled.text
    assert language("de-AT").chain == ("de-at", "de", "en")
    assert language("zz").chain == ("en",) and language("zz").code == "zz"


def test_every_message_key_in_the_source_is_in_the_store() -> None:
    source = Path(__file__).parents[2] / "src" / "atrium" / "wiki"
    keys: set[str] = set()
    for path in source.rglob("*.py"):
        text = path.read_text()
        keys |= set(re.findall(r"msg\.api\(\s*\"([a-z0-9-]+)\"", text))
        keys |= set(re.findall(r"msg\.message\(\s*\"([a-z0-9-]+)\"", text))
        keys |= set(re.findall(r"\bapi\(\s*\"([a-z0-9-]+)\"", text))
    assert len(keys) > 30
    english = language("en")
    assert sorted(k for k in keys if english.template(k) is None) == []
