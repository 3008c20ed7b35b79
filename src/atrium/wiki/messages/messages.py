"""API messages: a MediaWiki message key and its typed parameters, rendered late in one language.

A `Message` holds no text. `errorformat=raw` shows the key and the typed parameters; the other
formats render the message at response time in the error language (`errorlang`, by default
`uselang`; always English in `bc`), from MediaWiki's own texts in `atrium/wiki/messages/i18n/`
(see `language.py`). Parameters are MediaWiki's typed parameters: `{"plaintext": s}`,
`{"num": n}`, `{"list": [...], "type": "text"|"comma"|...}`, or a bare string or number.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from atrium.wiki.messages.language import Language, english, language
from atrium.wiki.site import SITENAME
from atrium.wiki.titles import Namespaces, TitleParser, standard_namespaces
from atrium.wiki.wikitext.escaping import escape_wikitext as escape_wikitext
from atrium.wiki.wikitext.html.message import MessageHtml

#  `api-usage-mailinglist-ref` as `plaintext` renders it (bc warnings).
DEPRECATION_NOTICE = (
    "Subscribe to the mediawiki-api-announce mailing list at "
    "<https://lists.wikimedia.org/postorius/lists/mediawiki-api-announce.lists.wikimedia.org/> "
    "for notice of API deprecations and breaking changes."
)

WIKITEXT, PLAINTEXT, HTML = "wikitext", "plaintext", "html"

_PLURAL = re.compile(r"\{\{PLURAL:([^|}]*)\|((?:[^{}]|\{\{[^{}]*\}\})*)\}\}", re.IGNORECASE)
_INT = re.compile(r"\{\{int:([^|{}]+)\}\}", re.IGNORECASE)
_GENDER = re.compile(r"\{\{GENDER:([^|}]*)\|([^{}]*)\}\}", re.IGNORECASE)
_PARAM = re.compile(r"\$(\d+)")
_SEMANTIC_TAG = re.compile(r"</?(?:var|kbd|samp|code)>")
_TAG = re.compile(r"<[^<>]*>")
# What Sanitizer::stripAllTags drops with its content: what a browser never shows.
_NON_VISIBLE = re.compile(r"<(script|style)\b[^>]*>.*?(?:</\1\s*>|$)", re.IGNORECASE | re.DOTALL)
_AFTER = re.compile("\x7fp(\\d+)\x7f")
_WHITESPACE = re.compile("[ \r\n\t]+")


@dataclass(frozen=True)
class Message:
    key: str
    params: tuple[Any, ...] = ()
    data: dict[str, Any] | None = field(default=None)

    def render(
        self, lang: Language | str = "en", form: str = PLAINTEXT, links: MessageHtml | None = None
    ) -> str:
        """The message in `lang` as MediaWiki's `text()` (wikitext), its plaintext or its HTML
        (`parse()`; `links` knows which linked pages exist)."""
        target = lang if isinstance(lang, Language) else language(lang)
        return render(self.key, self.params, target, form, links)

    @property
    def text(self) -> str:
        """English plaintext: the `info` of a bc error and the text of a bc warning."""
        return self.render(english(), PLAINTEXT)

    def localized(self, uselang: Language) -> Message:
        """The message with its user-language parameters (`GroupLinks`, `CommaList`) made text,
        as MediaWiki builds them when the error is raised."""
        if not any(isinstance(p, GroupLinks | CommaList) for p in self.params):
            return self
        params = tuple(
            p.wikitext(uselang) if isinstance(p, GroupLinks | CommaList) else p for p in self.params
        )
        return Message(self.key, params, self.data)


@dataclass(frozen=True)
class GroupLinks:
    """`User::newFatalPermissionDeniedStatus`'s groups: `[[Project:Administrators|name]]` links,
    the group names in the user language, the link targets from the content language."""

    project: str
    groups: tuple[str, ...]

    def wikitext(self, lang: Language) -> str:
        links = []
        for group in self.groups:
            name = render(f"group-{group}", (), lang, WIKITEXT)
            page = english().template(f"grouppage-{group}")
            if page is None:
                links.append(name)
            else:
                target = page.replace("{{ns:project}}", self.project)
                links.append(f"[[{target}|{name}]]")
        return lang.join_list(links, "comma")


@dataclass(frozen=True)
class CommaList:
    """`Language::commaList` of the user language, joined when the error is raised (a text
    parameter, not a list parameter: ChangeTags::restrictedTagError)."""

    items: tuple[str, ...]

    def wikitext(self, lang: Language) -> str:
        return lang.join_list(list(self.items), "comma")


def render(
    key: str,
    params: Sequence[Any],
    lang: Language,
    form: str = PLAINTEXT,
    links: MessageHtml | None = None,
) -> str:
    template = lang.template(key)
    if template is None:
        return f"\u29fc{key}\u29fd"  # MediaWiki shows a missing message as ⧼key⧽
    after: list[str] = []  # HTML: plaintext parameters go in after parsing, escaped
    values = [_param_text(p, lang, form, after) for p in params]
    numbers = [_param_number(p) for p in params]

    def subst(text: str) -> str:
        return _PARAM.sub(lambda m: _nth(values, m.group(1), m.group(0)), text)

    def plural(match: re.Match[str]) -> str:
        count = _plural_count(match.group(1), numbers, lang)
        return subst(lang.plural(count, _split_forms(match.group(2))))

    def gender(match: re.Match[str]) -> str:
        forms = _split_forms(match.group(2))
        return subst(forms[-1] if len(forms) > 2 else forms[0]) if forms else ""

    # {{int:key}}: another message of the same language (alreadyrolled's separators and links)
    template = _INT.sub(lambda m: lang.template(m.group(1).strip()) or m.group(0), template)
    text = _PLURAL.sub(plural, template)
    text = _GENDER.sub(gender, text)
    text = subst(text)
    if form == PLAINTEXT:
        return strip_markup(text)
    if form == HTML:
        parsed = (links or _default_links()).render(text)
        return _AFTER.sub(lambda m: after[int(m.group(1))], parsed)
    return text


def strip_markup(text: str) -> str:
    """ApiErrorFormatter::stripMarkup: semantic tags become quotes, other tags go (script and
    style with their content), entities decode, and runs of whitespace (line breaks too) become one space (Sanitizer::stripAllTags)."""
    visible = _NON_VISIBLE.sub("", _SEMANTIC_TAG.sub('"', text))
    stripped = html.unescape(_TAG.sub("", visible))
    return _WHITESPACE.sub(" ", stripped).strip(" \r\n\t")


def _nth(values: Sequence[str], index: str, default: str) -> str:
    i = int(index) - 1
    return values[i] if 0 <= i < len(values) else default


def _split_forms(body: str) -> list[str]:
    forms, depth, current = [], 0, []
    i = 0
    while i < len(body):
        if body.startswith("{{", i):
            depth += 1
            current.append("{{")
            i += 2
            continue
        if body.startswith("}}", i):
            depth -= 1
            current.append("}}")
            i += 2
            continue
        if body[i] == "|" and depth == 0:
            forms.append("".join(current))
            current = []
        else:
            current.append(body[i])
        i += 1
    forms.append("".join(current))
    return forms


def _plural_count(expr: str, numbers: Sequence[float | None], lang: Language) -> float:
    expr = expr.strip()
    match = _PARAM.fullmatch(expr)
    if match:
        i = int(match.group(1)) - 1
        value = numbers[i] if 0 <= i < len(numbers) else None
        return value if value is not None else 0
    return lang.parse_number(expr)


def _param_number(param: Any) -> float | None:
    if isinstance(param, Mapping) and "num" in param:
        return float(param["num"])
    if isinstance(param, bool):
        return None
    if isinstance(param, int | float):
        return float(param)
    if isinstance(param, str):
        try:
            return float(param)
        except ValueError:
            return None
    return None


def _param_text(param: Any, lang: Language, form: str, after: list[str]) -> str:
    if isinstance(param, Mapping):
        if "plaintext" in param:
            value = str(param["plaintext"])
            if form != HTML:
                return value
            after.append(html.escape(value).replace("&#x27;", "&#039;"))
            return f"\x7fp{len(after) - 1}\x7f"
        if "num" in param:
            return lang.format_num(param["num"])
        if "list" in param:
            items = param["list"]
            seq = list(items.values()) if isinstance(items, Mapping) else list(items)
            texts = [_param_text(item, lang, form, after) for item in seq]
            return lang.join_list(texts, str(param.get("type", "text")))
        if "message" in param:
            inner = param["message"]
            return render(str(inner["key"]), inner.get("params", ()), lang, WIKITEXT)
    if isinstance(param, bool):
        return "1" if param else ""
    return str(param)


@cache
def _default_links() -> MessageHtml:
    """Links rendered against the standard namespaces, as if no page existed."""
    namespaces = Namespaces({ns.id: ns for ns in standard_namespaces(SITENAME)})
    return MessageHtml(TitleParser(namespaces), set())


# --- typed parameters -------------------------------------------------------------------------


def plain(value: object) -> dict[str, str]:
    return {"plaintext": str(value)}


def num(value: int) -> dict[str, int]:
    return {"num": value}


def text_list(values: Sequence[Any], kind: str = "text") -> dict[str, Any]:
    return {"list": [v if isinstance(v, Mapping) else plain(v) for v in values], "type": kind}


def var_list(names: Sequence[str], kind: str = "text") -> dict[str, Any]:
    """A list of parameter names as ApiBase passes them: raw `<var>name</var>` items."""
    return {"list": [f"<var>{n}</var>" for n in names], "type": kind}


def api(key: str, *params: Any, data: dict[str, Any] | None = None) -> Message:
    """A message by MediaWiki key with its parameters; the text comes from the message store."""
    return Message(key, tuple(params), data)


# --- the messages of ParamValidator and ApiBase -----------------------------------------------


def badvalue_enum(param: str, value: str, allowed: Sequence[str]) -> Message:
    return api(
        "paramvalidator-badvalue-enumnotmulti",
        plain(param),
        plain(value),
        text_list(allowed),
        num(len(allowed)),
    )


def unrecognized_values(param: str, raw: str, values: Sequence[str]) -> Message:
    return api(
        "paramvalidator-unrecognizedvalues",
        plain(param),
        plain(raw),
        text_list(values, "comma"),
        num(len(values)),
        data={"values": list(values)},
    )


def missingparam(param: str) -> Message:
    return api("paramvalidator-missingparam", plain(param))


def badinteger(param: str, value: str) -> Message:
    return api("paramvalidator-badinteger", plain(param), plain(value))


def badtimestamp(param: str, value: str) -> Message:
    return api("paramvalidator-badtimestamp", plain(param), plain(value))


def baduser(param: str, value: str) -> Message:
    return api("paramvalidator-baduser", plain(param), plain(value))


def outofrange(
    param: str, value: str, low: int, curmax: int, max_: int | None, highmax: int | None
) -> Message:
    data: dict[str, Any] = {"min": low, "curmax": curmax}
    if max_ is not None:
        data["max"] = max_
    if highmax is not None:
        data["highmax"] = highmax
    return api(
        "paramvalidator-outofrange-minmax",
        plain(param),
        plain(value),
        num(low),
        num(curmax),
        data=data,
    )


def toomanyvalues(param: str, limit: int) -> Message:
    return api("paramvalidator-toomanyvalues", plain(param), num(limit))


def deprecated_param(param: str) -> Message:
    return api("paramvalidator-param-deprecated", plain(param))


def deprecated_value(param: str, value: str) -> Message:
    return api("paramvalidator-deprecated-value", plain(param), plain(value))


def unrecognized_params(names: Mapping[int, str]) -> Message:
    """`names` by their position among the request's values, as ApiMain's `array_diff` keeps."""
    return api(
        "apierror-unrecognizedparams",
        {"list": {str(i): n for i, n in names.items()}, "type": "comma"},
        len(names),
    )


def invalidparammix(names: Sequence[str]) -> Message:
    return api("apierror-invalidparammix", var_list(names), len(names))


def missing_one_of(names: Sequence[str]) -> Message:
    return api("apierror-missingparam-one-of", var_list(names), len(names))


def missing_at_least_one_of(names: Sequence[str]) -> Message:
    return api("apierror-missingparam-at-least-one-of", var_list(names), len(names))


def deprecation_notice() -> Message:
    return api("api-usage-mailinglist-ref")


def message(key: str, *params: Any) -> dict[str, Any]:
    """A message as the parameter of another (`Message::msgParam`), e.g. `action-edit`."""
    return {"message": {"key": key, "params": list(params)}}


# --- titles ------------------------------------------------------------------------------------


def invalid_title(key: str, params: Sequence[Any], title: str) -> Message:
    """A MalformedTitleException's message: its parameters, then the escaped title text."""
    return api(key, *params, escape_wikitext(title))


def api_code(key: str) -> str:
    """ApiMessage's code for a plain message: the key without `apierror-`/`apiwarn-`."""
    for prefix in ("apierror-", "apiwarn-"):
        if key.startswith(prefix):
            return key[len(prefix) :]
    return key
