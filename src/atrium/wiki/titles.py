"""Namespaces and title normalisation, as MediaWiki's `Title::newFromText` does them.

A title's text is split into namespace, database key (underscores) and fragment; the namespace prefix
is matched case-insensitively against names, canonical names and aliases; the first letter of the
title is upper-cased in `first-letter` namespaces. Invalid titles carry MediaWiki's reason message.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

FIRST_LETTER = "first-letter"
CASE_SENSITIVE = "case-sensitive"

NS_MEDIA = -2
NS_SPECIAL = -1
NS_MAIN = 0
NS_TALK = 1
NS_USER = 2
NS_USER_TALK = 3
NS_PROJECT = 4
NS_PROJECT_TALK = 5
NS_FILE = 6
NS_FILE_TALK = 7
NS_MEDIAWIKI = 8
NS_MEDIAWIKI_TALK = 9
NS_TEMPLATE = 10
NS_TEMPLATE_TALK = 11
NS_HELP = 12
NS_HELP_TALK = 13
NS_CATEGORY = 14
NS_CATEGORY_TALK = 15


@dataclass(frozen=True)
class Namespace:
    id: int
    canonical: str  # "" for the main namespace
    name: str  # the local name (the project namespace is named after the site)
    case: str = FIRST_LETTER
    subpages: bool = False
    content: bool = False
    nonincludable: bool = False
    protection: str | None = None  # the right needed to edit any page of the namespace


def standard_namespaces(sitename: str) -> list[Namespace]:
    """MediaWiki's built-in namespaces -2..15 with their default settings."""
    return [
        Namespace(NS_MEDIA, "Media", "Media"),
        Namespace(NS_SPECIAL, "Special", "Special"),
        Namespace(NS_MAIN, "", "", content=True),
        Namespace(NS_TALK, "Talk", "Talk", subpages=True),
        Namespace(NS_USER, "User", "User", subpages=True),
        Namespace(NS_USER_TALK, "User talk", "User talk", subpages=True),
        Namespace(NS_PROJECT, "Project", sitename, subpages=True),
        Namespace(NS_PROJECT_TALK, "Project talk", f"{sitename} talk", subpages=True),
        Namespace(NS_FILE, "File", "File"),
        Namespace(NS_FILE_TALK, "File talk", "File talk", subpages=True),
        Namespace(
            NS_MEDIAWIKI, "MediaWiki", "MediaWiki", subpages=True, protection="editinterface"
        ),
        Namespace(NS_MEDIAWIKI_TALK, "MediaWiki talk", "MediaWiki talk", subpages=True),
        Namespace(NS_TEMPLATE, "Template", "Template", subpages=True),
        Namespace(NS_TEMPLATE_TALK, "Template talk", "Template talk", subpages=True),
        Namespace(NS_HELP, "Help", "Help", subpages=True),
        Namespace(NS_HELP_TALK, "Help talk", "Help talk", subpages=True),
        Namespace(NS_CATEGORY, "Category", "Category"),
        Namespace(NS_CATEGORY_TALK, "Category talk", "Category talk", subpages=True),
    ]


STANDARD_ALIASES: tuple[tuple[str, int], ...] = (("Image", NS_FILE), ("Image talk", NS_FILE_TALK))


def _key(name: str) -> str:
    return name.replace("_", " ").strip().lower()


@dataclass
class Namespaces:
    """The namespaces of one wiki, with a case-insensitive lookup of every name a prefix may use."""

    by_id: dict[int, Namespace]
    aliases: list[tuple[str, int]] = field(default_factory=list)
    _lookup: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    # What a title of each namespace starts with (`Talk:`; "" for the main namespace).
    prefixes: dict[int, str] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for ns in self.by_id.values():
            self.prefixes[ns.id] = f"{ns.name}:" if ns.name else ""
            if ns.id == NS_MAIN:
                continue
            self._lookup[_key(ns.canonical)] = ns.id
            self._lookup[_key(ns.name)] = ns.id
        for alias, ns_id in self.aliases:
            self._lookup[_key(alias)] = ns_id

    @classmethod
    def standard(cls, sitename: str = "Atrium") -> Namespaces:
        return cls({ns.id: ns for ns in standard_namespaces(sitename)}, list(STANDARD_ALIASES))

    def lookup(self, prefix: str) -> int | None:
        return self._lookup.get(_key(prefix))

    def ids(self) -> list[int]:
        return sorted(self.by_id)

    def name(self, ns_id: int) -> str:
        return self.by_id[ns_id].name

    def prefix(self, ns_id: int) -> str:
        """What a title of the namespace starts with: `Talk:`; nothing for the main namespace
        or an unknown one."""
        return self.prefixes.get(ns_id, "")

    def has_talk(self, ns_id: int) -> bool:
        return ns_id >= 0

    def talk_of(self, ns_id: int) -> int:
        return ns_id | 1


@dataclass(frozen=True)
class Title:
    ns: int
    dbkey: str  # underscores, no namespace
    fragment: str = ""
    interwiki: str = ""

    @property
    def text(self) -> str:
        return self.dbkey.replace("_", " ")


class InvalidTitle(Exception):
    """MediaWiki's MalformedTitleException: the message key, its parameters before the title,
    the English text, and `title`, the text as the title parser saw it (spaces as underscores),
    which MediaWiki adds as the message's last parameter."""

    def __init__(self, key: str, text: str, params: tuple[object, ...] = ()) -> None:
        super().__init__(text)
        self.key = key
        self.text = text
        self.params = params
        self.title = ""


MAX_TITLE_BYTES = 255
_ILLEGAL = re.compile(r"[#<>\[\]|{}\x00-\x1f\x7f\ufffd]|%[0-9A-Fa-f]{2}|&[A-Za-z0-9\x80-\xff]+;")
_WHITESPACE = re.compile(r"[ _\u00a0\u1680\u180e\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_BIDI = re.compile(r"[\u200e\u200f\u202a-\u202e]")
_RELATIVE = re.compile(r"(^|/)\.\.?(/|$)")


def _ucfirst(text: str) -> str:
    if not text:
        return text
    first = text[0]
    # MediaWiki keeps these as they are (PHP's mb_strtoupper differs from Python's upper()).
    if first in "ßŉǰΐΰևﬀﬁﬂﬃﬄﬅﬆﬓﬔﬕﬖﬗ":
        return text
    upper = first.upper()
    if len(upper) != 1:
        return text
    return upper + text[1:]


class TitleParser:
    """Parses user-supplied title text into a `Title`, as MediaWiki's MediaWikiTitleCodec."""

    def __init__(self, namespaces: Namespaces, interwiki_prefixes: Iterable[str] = ()) -> None:
        self.namespaces = namespaces
        self.interwiki = {p.lower() for p in interwiki_prefixes}

    def parse(self, text: str, default_ns: int = NS_MAIN) -> Title:
        text = html.unescape(text) if "&" in text else text
        text = unicodedata.normalize("NFC", text)
        try:
            return self._split(text, default_ns)
        except InvalidTitle as exc:
            exc.title = text.replace(" ", "_")  # Title::newFromText's mDbkeyform
            raise

    def _split(self, text: str, default_ns: int) -> Title:
        text = _BIDI.sub("", text)
        dbkey = _WHITESPACE.sub("_", text).strip("_")
        if "\ufffd" in dbkey:
            raise InvalidTitle(
                "title-invalid-utf8", "The requested page title contains an invalid UTF-8 sequence."
            )
        if dbkey == "":
            raise _empty()
        ns = default_ns
        interwiki = ""
        if dbkey.startswith(":"):
            ns = NS_MAIN
            dbkey = dbkey[1:].lstrip("_")
        # Namespace (or interwiki) prefix: at most one namespace, possibly after an interwiki.
        match = re.match(r"^(.+?)_*:_*(.*)$", dbkey, re.S)
        if match:
            prefix, rest = match.group(1), match.group(2)
            ns_id = self.namespaces.lookup(prefix)
            if ns_id is not None:
                if ns_id == NS_TALK and rest.find(":") >= 0:
                    inner = re.match(r"^(.+?)_*:_*(.*)$", rest, re.S)
                    if inner and self.namespaces.lookup(inner.group(1)) is not None:
                        raise InvalidTitle(
                            "title-invalid-talk-namespace",
                            "The requested page title refers to a talk page that cannot exist.",
                        )
                ns = ns_id
                dbkey = rest
            elif prefix.lower() in self.interwiki:
                interwiki = prefix.lower()
                dbkey = rest
        fragment = ""
        hash_at = dbkey.find("#")
        if hash_at >= 0:
            fragment = dbkey[hash_at + 1 :].replace("_", " ")
            dbkey = dbkey[:hash_at].rstrip("_")
        bad = _ILLEGAL.search(dbkey)
        if bad:
            raise InvalidTitle(
                "title-invalid-characters",
                f'The requested page title contains invalid characters: "{bad.group(0)}".',
                (bad.group(0),),
            )
        if _RELATIVE.search(dbkey) or dbkey.startswith(("./", "../")):
            raise InvalidTitle(
                "title-invalid-relative",
                "Title has relative path. Relative page titles (./, ../) are invalid, because they "
                "will often be unreachable when handled by user's browser.",
            )
        if "~~~" in dbkey:
            raise InvalidTitle(
                "title-invalid-magic-tilde",
                "The requested page title contains invalid magic tilde sequence (<nowiki>~~~</nowiki>).",
            )
        limit = 512 if ns == NS_SPECIAL else MAX_TITLE_BYTES
        if len(dbkey.encode()) > limit:
            raise InvalidTitle(
                "title-invalid-too-long",
                f"The requested page title is too long. It must be no longer than {limit} bytes in "
                "UTF-8 encoding.",
                ({"num": limit},),
            )
        if dbkey == "" and not interwiki and not (fragment and ns == default_ns):
            raise _empty()
        if dbkey.startswith(":"):
            raise InvalidTitle(
                "title-invalid-leading-colon",
                "The requested page title contains an invalid colon at the beginning.",
            )
        if not interwiki and self.namespaces.by_id[ns].case == FIRST_LETTER:
            dbkey = _ucfirst(dbkey)
        return Title(ns, dbkey, fragment, interwiki)

    def parse_or_none(self, text: str, default_ns: int = NS_MAIN) -> Title | None:
        try:
            title = self.parse(text, default_ns)
        except InvalidTitle:
            return None
        return None if title.interwiki or not title.dbkey else title

    def prefixed_text(self, ns: int, dbkey: str) -> str:
        """The title as users see it: `Talk:Main Page`."""
        return self.namespaces.prefixes.get(ns, "") + dbkey.replace("_", " ")

    def prefixed_dbkey(self, ns: int, dbkey: str) -> str:
        return self.prefixed_text(ns, dbkey).replace(" ", "_")


def _empty() -> InvalidTitle:
    return InvalidTitle(
        "title-invalid-empty",
        "The requested page title is empty or contains only the name of a namespace.",
    )
