"""The languages of the API's own messages (`uselang`, `errorlang`): MediaWiki 1.39's texts and rules.

`i18n/<code>.json` hold MediaWiki's texts of the messages the API uses (core, API and
ParamValidator i18n files of the reference install, carried over by
`tools/extract_wiki_i18n.py`); `i18n/languages.json` the fallback chains and number separators of
the languages served: en, de, fr, their regional variants, and the languages whose chain reaches
de or fr without texts of their own. A key missing in a language is looked up along its chain and
then in English (de-at -> de -> en); an unknown code renders English but keeps its code, as
MediaWiki echoes it in `responselanginfo`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

CONTENT_LANGUAGE = "en"
_INVALID_CODE = re.compile(r"[:/\\\x00&<>'\"\s]")


@cache
def _texts(code: str) -> dict[str, str]:
    path = resources.files("atrium.wiki.messages").joinpath("i18n", f"{code}.json")
    if not path.is_file():
        return {}
    data: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return data


@cache
def _languages() -> dict[str, dict[str, Any]]:
    path = resources.files("atrium.wiki.messages").joinpath("i18n", "languages.json")
    data: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def served_codes() -> frozenset[str]:
    return frozenset(_languages())


@dataclass(frozen=True)
class Language:
    code: str
    chain: tuple[str, ...]  # the code itself (when served), its fallbacks, then "en"

    def template(self, key: str) -> str | None:
        for code in self.chain:
            text = _texts(code).get(key)
            if text is not None:
                return text
        return None

    def _separators(self) -> dict[str, str]:
        languages = _languages()
        for code in self.chain:
            table = languages.get(code, {}).get("separators")
            if table:
                return dict(table)
        return {}

    def format_num(self, value: float) -> str:
        """Language::formatNum: English grouping, then the language's separator table."""
        text = f"{value:,}" if isinstance(value, int) else f"{value:,}".rstrip("0").rstrip(".")
        table = self._separators()
        if not table:
            return text
        return "".join(table.get(ch, ch) for ch in text)

    def parse_number(self, text: str) -> float:
        table = {v: k for k, v in self._separators().items()}
        english = "".join(table.get(ch, ch) for ch in text.strip()).replace(",", "")
        try:
            return float(english)
        except ValueError:
            return 0.0

    def plural(self, count: float, forms: list[str]) -> str:
        """`{{PLURAL:}}`: explicit `N=` forms first, then CLDR's one/other of the language."""
        plain: list[str] = []
        for form in forms:
            match = re.fullmatch(r"\s*(\d+)=(.*)", form, re.DOTALL)
            if match:
                if float(match.group(1)) == count:
                    return match.group(2)
            else:
                plain.append(form)
        if not plain:
            return ""
        absolute = abs(count)
        # fr: "one" for i = 0,1; en and de: "one" for i = 1 and v = 0
        one = absolute < 2 if self._base() == "fr" else absolute == 1
        return plain[0] if one or len(plain) == 1 else plain[1]

    def _base(self) -> str:
        for code in self.chain:
            if code in ("de", "fr", "en"):
                return code
        return "en"

    def separator(self, key: str) -> str:
        return (self.template(key) or "").replace("&#32;", " ")

    def join_list(self, items: list[str], kind: str) -> str:
        """Language::listToText (`text`), commaList, semicolonList, pipeList."""
        if kind == "comma":
            return self.separator("comma-separator").join(items)
        if kind == "semicolon":
            return self.separator("semicolon-separator").join(items)
        if kind == "pipe":
            return self.separator("pipe-separator").join(items)
        if len(items) <= 1:
            return "".join(items)
        last = items[-2] + self.separator("and") + self.separator("word-separator") + items[-1]
        head = [*items[:-2], last]
        return (self.separator("comma-separator") if len(items) > 2 else "").join(head)


def sanitize(code: str) -> str:
    """RequestContext::sanitizeLangCode: lower case; an invalid code becomes the content language."""
    code = code.lower()
    if not code or _INVALID_CODE.search(code) or code == "qqq":
        return CONTENT_LANGUAGE
    return code


def language(code: str) -> Language:
    code = sanitize(code)
    if code in _languages():
        return _known_language(code)
    # Any other code (`uselang` is the client's to choose) is built afresh rather than kept:
    # keeping every code asked for would let requests grow the process without bound.
    return Language(code, ("en",))


@cache
def _known_language(code: str) -> Language:
    chain = (code, *_languages()[code]["fallback"])
    if "en" not in chain:
        chain = (*chain, "en")
    return Language(code, chain)


def english() -> Language:
    return language("en")
