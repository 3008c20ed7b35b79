"""`meta=languageinfo`, and siteinfo's `languages` and `languagevariants` from the same facts,
held against the answers a real MediaWiki 1.39 gave to the same requests in JSON (formatversion
1 and 2), XML and PHP (`data/mw139_languageinfo.json`, recorded by tools/capture_languageinfo.py);
the time budget that makes 1.39 continue; and the one list of languages behind them all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.api.query.meta import languageinfo
from atrium.wiki.messages.language_facts import known_languages

pytestmark = pytest.mark.anyio

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "mw139_languageinfo.json").read_text(encoding="utf-8")
)
FORMATS = {
    "json1": {"format": "json"},
    "json2": {"format": "json", "formatversion": "2"},
    "xml": {"format": "xml"},
    "php": {"format": "php"},
}


# `docref` and `licenselink` name the wiki's own address; paraminfo's `source`, `sourcename` and
# `helpurls` are left out of every module's record by the specification (test_paraminfo_spec.py).
UNCOMPARED = ("docref", "licenselink", "source", "sourcename", "helpurls")


def _comparable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items() if k not in UNCOMPARED}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    return value


async def _answer(client: httpx.AsyncClient, params: dict[str, str], fmt: str) -> Any:
    response = await client.get("/w/api.php", params={"action": "query", **params, **FORMATS[fmt]})
    assert response.status_code == 200, response.text
    return response.json() if fmt.startswith("json") else response.text


@pytest.mark.parametrize("name", sorted(RECORDED))
async def test_answers_as_mediawiki_139(
    wiki: WikiHarness, client: httpx.AsyncClient, name: str
) -> None:
    case = RECORDED[name]
    for fmt, expected in case["answers"].items():
        actual = await _answer(client, case["request"], fmt)
        if fmt.startswith("json"):
            actual, expected = _comparable(actual), _comparable(expected)
        assert actual == expected, f"{name} ({fmt})"


async def test_out_of_time_continues_where_it_stopped(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The budget runs out after two languages: the third is named in `licontinue`, and asking
    again from there answers the rest."""
    ticks = iter([0.0, 0.0, 1.0, languageinfo.BUDGET_SECONDS, 99.0])
    monkeypatch.setattr(languageinfo, "clock", lambda: next(ticks, 0.0))
    params = {"action": "query", "meta": "languageinfo", "licode": "en|de|fr|zh"}
    first = await wiki.api(client, formatversion="2", **params)
    assert first["query"]["languageinfo"] == {"de": {"code": "de"}, "en": {"code": "en"}}
    assert first["continue"] == {"licontinue": "fr", "continue": "-||"}
    assert "batchcomplete" in first
    monkeypatch.setattr(languageinfo, "clock", lambda: 0.0)
    second = await wiki.api(client, formatversion="2", licontinue="fr", **params)
    assert list(second["query"]["languageinfo"]) == ["fr", "zh"]
    assert "continue" not in second


async def test_one_list_of_languages(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """siteinfo's languages, languageinfo's codes and the language preference's choices are the
    same list, in the same order."""
    known = list(known_languages())
    site = await wiki.api(
        client, action="query", meta="siteinfo", siprop="languages", formatversion="2"
    )
    assert [entry["code"] for entry in site["query"]["languages"]] == known
    info = await wiki.api(client, action="query", meta="languageinfo", formatversion="2")
    assert list(info["query"]["languageinfo"]) == known
    assert len(known) == 493


async def test_name_follows_the_user_language(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """`name` is asked in the user language (here the caller's preference): 1.39 without CLDR
    names every language by its autonym in every language."""
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    done = await wiki.post(client, action="options", optionname="language", optionvalue="fr",
                           token=token)  # fmt: skip
    assert done == {"options": "success"}, done
    answer = await wiki.api(
        client, action="query", meta="languageinfo", licode="de|ja", liprop="name",
        formatversion="2", uselang="user",
    )  # fmt: skip
    assert answer["query"]["languageinfo"] == {"de": {"name": "Deutsch"}, "ja": {"name": "日本語"}}


async def test_unrecognized_codes_are_never_markup(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """A code is written into the warning as wikitext, as MediaWiki does; script and event
    handlers never come out as HTML."""
    answer = await wiki.api(
        client, action="query", meta="languageinfo", formatversion="2", errorformat="html",
        licode='<script>alert(1)</script>|<img src=x onerror=alert(1)>|en',
    )  # fmt: skip
    html = answer["warnings"][0]["html"]
    assert "<script" not in html and "<img" not in html
    assert list(answer["query"]["languageinfo"]) == ["en"]
