"""The languages the wiki knows, and what it knows of each: the one list behind siteinfo's
`languages` and `languagevariants`, `meta=languageinfo`, the language preference and the names
of language links.

`data/language_facts.json` holds MediaWiki 1.39's facts as the reference install answered them
(recorded by `tools/capture_languageinfo.py`): every code LanguageNameUtils lists, in its order,
with its BCP 47 code, direction, autonym, strict fallback chain, variants and whether a user may
choose it, and the variants' fallbacks of the languages that have a converter. The reference runs without the CLDR extension,
so a language's name in any user language is its autonym; `name_in` keeps that rule in one place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from atrium.wiki.messages.language import CONTENT_LANGUAGE


@dataclass(frozen=True)
class LanguageFacts:
    code: str
    bcp47: str
    dir: str  # "ltr" or "rtl"
    autonym: str
    fallbacks: tuple[str, ...]  # LanguageFallback::STRICT: without the implicit "en"
    variants: tuple[str, ...]  # the converter's variants; the code itself when it has none
    supported: bool  # MediaWiki has its interface messages: a user may choose it


@cache
def _data() -> dict[str, dict[str, Any]]:
    path = resources.files("atrium.wiki.messages").joinpath("data", "language_facts.json")
    data: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return data


@cache
def known_languages() -> dict[str, LanguageFacts]:
    """Every known language by code, in MediaWiki's order (sorted by code)."""
    return {
        code: LanguageFacts(
            code,
            facts["bcp47"],
            facts["dir"],
            facts["autonym"],
            tuple(facts["fallbacks"]),
            tuple(facts["variants"]),
            facts["supported"],
        )
        for code, facts in _data()["languages"].items()
    }


@cache
def user_languages() -> dict[str, str]:
    """The choices of the `language` preference, by code: the supported languages (and the
    content language), each shown as its BCP 47 code and autonym, as Special:Preferences does."""
    return {
        facts.code: f"{facts.bcp47} - {facts.autonym}"
        for facts in known_languages().values()
        if facts.supported or facts.code == CONTENT_LANGUAGE
    }


def autonym(code: str) -> str | None:
    facts = known_languages().get(code)
    return None if facts is None else facts.autonym


def name_in(code: str, inlanguage: str) -> str | None:
    """The language's name in `inlanguage` (LanguageNameUtils::getLanguageName): the autonym,
    as no translated names are recorded (see the module's note)."""
    del inlanguage  # every user language names a language by its autonym here
    return autonym(code)


@cache
def variant_fallbacks() -> dict[str, dict[str, tuple[str, ...]]]:
    """The languages with a converter (siteinfo's `languagevariants`): variant -> fallbacks."""
    table = _data()["variant_fallbacks"]
    return {
        code: {variant: tuple(fallbacks) for variant, fallbacks in variants.items()}
        for code, variants in table.items()
    }
