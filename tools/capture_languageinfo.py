"""Record MediaWiki 1.39's language facts and `meta=languageinfo` answers.

    .venv/bin/python tools/capture_languageinfo.py [/usr/share/mediawiki]

Against the reference wiki (`../shared/reference/mediawiki/mediawiki-ref.sh start`), anonymously:

- `src/atrium/wiki/messages/data/language_facts.json`, the languages the wiki knows: every code
  `licode=*` lists, in its order, with its BCP 47 code, direction, autonym, strict fallback chain
  and variants, whether it is one a user may choose as their language (LanguageNameUtils'
  SUPPORTED: the reference install has a message file for it, which the API does not tell), and
  the variants' fallbacks of the languages `siprop=languagevariants` lists. The reference has no
  CLDR extension, so a language's name in any user language is its autonym; no other names are
  kept. The reference gives up after three seconds per request (`licontinue`), so the list is
  asked for until it no longer continues.
- `tests/wiki/data/mw139_languageinfo.json`, the answers to CASES (JSON formatversion 1 and 2,
  XML, PHP) that tests/wiki/test_languageinfo.py compares Atrium's answers with.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
from mwref_session import API

REPO = Path(__file__).resolve().parents[1]
FACTS = REPO / "src" / "atrium" / "wiki" / "messages" / "data" / "language_facts.json"
OUT = REPO / "tests" / "wiki" / "data" / "mw139_languageinfo.json"
ALL_PROPS = "code|bcp47|dir|autonym|name|fallbacks|variants"
FORMATS: dict[str, dict[str, str]] = {
    "json1": {"format": "json"},
    "json2": {"format": "json", "formatversion": "2"},
    "xml": {"format": "xml"},
    "php": {"format": "php"},
}
# name -> (request, the formats to record); `licode=*` with every prop would run out of time
# on the reference, so the cases that list every language ask for cheap props only.
CASES: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {
    "default": ({"meta": "languageinfo"}, ("json1", "json2")),
    "all-bcp47-dir-autonym": (
        {"meta": "languageinfo", "liprop": "code|bcp47|autonym"},
        ("json2",),
    ),
    "some-every-prop": (
        {
            "meta": "languageinfo", "liprop": ALL_PROPS,
            "licode": "zh|en|sr|ar|he|oc|be-x-old|de-formal|kk|ike-cans|simple|nb",
        },
        tuple(FORMATS),
    ),
    "name-uselang-de": (
        {"meta": "languageinfo", "liprop": "autonym|name", "licode": "en|de|fr", "uselang": "de"},
        ("json2", "xml"),
    ),
    "example-oc": (
        {"meta": "languageinfo", "liprop": "fallbacks|variants", "licode": "oc"},
        tuple(FORMATS),
    ),
    "unrecognized": (
        {"meta": "languageinfo", "licode": "xx|en|*|EN|de_at|qqq|qqx|en-x-piglatin"},
        tuple(FORMATS),
    ),
    "unrecognized-one": ({"meta": "languageinfo", "licode": "fr|zz-zz"}, ("json1", "json2")),
    "unrecognized-markup": (
        {"meta": "languageinfo", "licode": "<b>y</b>|<script>x</script>|en"},
        ("json2",),
    ),
    "unrecognized-plaintext": (
        {"meta": "languageinfo", "licode": "<b>y</b>|xx", "errorformat": "plaintext"},
        ("json2",),
    ),
    "unrecognized-raw": (
        {"meta": "languageinfo", "licode": "<b>y</b>|xx", "errorformat": "raw"},
        ("json2",),
    ),
    "unrecognized-html": (
        {"meta": "languageinfo", "licode": "<b>y</b>|xx", "errorformat": "html"},
        ("json2",),
    ),
    "empty-code": ({"meta": "languageinfo", "licode": ""}, ("json1", "json2", "xml", "php")),
    "empty-prop": ({"meta": "languageinfo", "liprop": "", "licode": "en|de"}, ("json2",)),
    "bad-prop": ({"meta": "languageinfo", "liprop": "code|bogus", "licode": "en"}, ("json2",)),
    "continue-before": (
        {"meta": "languageinfo", "licode": "en|zh|fr", "licontinue": "fr"},
        ("json2",),
    ),
    "continue-last": ({"meta": "languageinfo", "licontinue": "zu"}, ("json2",)),
    "continue-past": ({"meta": "languageinfo", "licontinue": "zz"}, ("json2", "xml")),
    "continue-middle": ({"meta": "languageinfo", "licontinue": "yi"}, ("json2",)),
    "continue-empty": (
        {"meta": "languageinfo", "licontinue": "", "licode": "en|de"},
        ("json2",),
    ),
    "too-many-codes": (
        {"meta": "languageinfo", "licode": "|".join(f"x{i}" for i in range(51))},
        ("json2",),
    ),
    "siteinfo-languages": (
        {"meta": "siteinfo", "siprop": "languages|languagevariants"},
        tuple(FORMATS),
    ),
    "paraminfo": (
        {"action": "paraminfo", "modules": "query+languageinfo"},
        ("json1", "json2"),
    ),
    "siteinfo-languages-de": (
        {"meta": "siteinfo", "siprop": "languages", "siinlanguage": "de"},
        ("json2",),
    ),
}  # fmt: skip


def _get(client: httpx.Client, params: dict[str, str]) -> httpx.Response:
    response = client.get(API, params={"action": "query", **params})  # `action` may say other
    response.raise_for_status()
    return response


def _supported(install: Path, code: str) -> bool:
    """LanguageNameUtils::SUPPORTED: a MessagesXx.php or an i18n JSON file for the code."""
    name = code.replace("-", "_")
    php = install / "languages" / "messages" / f"Messages{name[:1].upper()}{name[1:]}.php"
    return php.is_file() or (install / "languages" / "i18n" / f"{code}.json").is_file()


def _facts(client: httpx.Client, install: Path) -> dict[str, Any]:
    languages: dict[str, dict[str, Any]] = {}
    more: dict[str, str] = {}
    while True:
        params = {"meta": "languageinfo", "liprop": ALL_PROPS, **more, **FORMATS["json2"]}
        answer = _get(client, params).json()
        for code, info in answer["query"]["languageinfo"].items():
            if info["name"] != info["autonym"]:
                raise SystemExit(f"{code}: a name other than the autonym; record names too")
            languages[code] = {
                "bcp47": info["bcp47"], "dir": info["dir"], "autonym": info["autonym"],
                "fallbacks": info["fallbacks"], "variants": info["variants"],
                "supported": _supported(install, code),
            }  # fmt: skip
        if "continue" not in answer:
            break
        more = {k: v for k, v in answer["continue"].items() if k != "continue"}
    site = _get(
        client, {"meta": "siteinfo", "siprop": "languages|languagevariants", **FORMATS["json2"]}
    ).json()["query"]
    listed = [entry["code"] for entry in site["languages"]]
    if listed != list(languages):
        raise SystemExit("siteinfo's languages are not languageinfo's")
    variants = {
        code: {variant: facts["fallbacks"] for variant, facts in table.items()}
        for code, table in site["languagevariants"].items()
    }
    return {"languages": languages, "variant_fallbacks": variants}


def _one_line_each(facts: dict[str, Any]) -> str:
    """The facts as JSON with one line per language, so that a new capture diffs by language."""
    parts = []
    for key, table in facts.items():
        lines = [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in table.items()]
        parts.append(f"{json.dumps(key)}: {{\n" + ",\n".join(lines) + "\n}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main() -> None:
    install = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/mediawiki")
    if not (install / "languages" / "i18n" / "en.json").is_file():
        raise SystemExit(f"{install} is not a MediaWiki install")
    with httpx.Client(timeout=60) as client:
        facts = _facts(client, install)
        FACTS.write_text(_one_line_each(facts), encoding="utf-8")
        cases: dict[str, Any] = {}
        for name, (params, formats) in CASES.items():
            answers = {}
            for fmt in formats:
                response = _get(client, {**params, **FORMATS[fmt]})
                answers[fmt] = response.json() if fmt.startswith("json") else response.text
            cases[name] = {"request": params, "answers": answers}
    OUT.write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(facts['languages'])} languages, {len(cases)} cases")


if __name__ == "__main__":
    main()
