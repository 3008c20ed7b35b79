"""What a revision's wikitext links to: pages, templates, categories, files, external URLs,
language links and the redirect target, read once per save from the preprocessor's tree
(`preprocess`), the reader the expander and the pre-save transform share.

Templates are the ones the text transcludes directly; templates reached only through other templates
are not followed (that needs template expansion, which the renderer will bring).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from atrium.wiki.titles import (
    NS_CATEGORY,
    NS_FILE,
    NS_MEDIA,
    NS_SPECIAL,
    NS_TEMPLATE,
    InvalidTitle,
    Title,
    TitleParser,
)
from atrium.wiki.wikitext.html.charrefs import decode_char_refs
from atrium.wiki.wikitext.html.page import inline_html
from atrium.wiki.wikitext.linkfilter import URL_PROTOCOLS
from atrium.wiki.wikitext.preprocess import Element, Node, preprocess

_REDIRECT = re.compile(r"^\s*#REDIRECT\s*:?\s*\[\[([^\]\|\n]+)(?:\|[^\]]*)?\]\]", re.I)
# Every protocol of $wgUrlProtocols makes an external link, as in MediaWiki's link tables.
_URL = re.compile("^(?:" + "|".join(re.escape(p) for p in (*URL_PROTOCOLS, "//")) + ")", re.I)
_PROTOCOLS = "|".join(re.escape(p) for p in URL_PROTOCOLS)
# `[url label]`: a URL of $wgUrlProtocols (or protocol-relative) right after the bracket.
_EXTERNAL = re.compile(
    r"\[((?:" + _PROTOCOLS + r"|//)[^\]\[<>\"\x00-\x20\x7f\u3000]+)[^\]\n]*\]", re.I
)
# A free URL (Parser::handleFreeExternalLinks): a protocol at a word boundary, up to a character
# no URL holds.
_FREE_URL = re.compile(r"\b(?:" + _PROTOCOLS + r")[^\]\[<>\"\x00-\x20\x7f\u3000]+", re.I)
_TRAILING_PUNCTUATION = ",;.:!?"
_BRACKETS = re.compile(r"\[\[|\]\]|\|")
# Stands for an extension tag or a bracketed external link: no title or URL can hold it.
_HIDDEN = "\x7f"
_DOUBLE_UNDERSCORE = re.compile(
    r"__(NOTOC|NOGALLERY|FORCETOC|TOC|NOEDITSECTION|NEWSECTIONLINK|NONEWSECTIONLINK|HIDDENCAT|"
    r"EXPECTUNUSEDCATEGORY|INDEX|NOINDEX|STATICREDIRECT|NOTITLECONVERT|NOTC|NOCONTENTCONVERT|NOCC)__"
)
_UNDERSCORE_ALIASES = {"notc": "notitleconvert", "nocc": "nocontentconvert"}
_MAGIC_PREFIXES = ("subst:", "safesubst:", "msgnw:", "msg:", "raw:", "int:", "#")
# Magic words and parser functions that look like templates but are not transclusions.
_MAGIC_WORDS = frozenset(
    [
        "PAGENAME",
        "PAGENAMEE",
        "FULLPAGENAME",
        "FULLPAGENAMEE",
        "NAMESPACE",
        "NAMESPACEE",
        "NAMESPACENUMBER",
        "SUBPAGENAME",
        "BASEPAGENAME",
        "ROOTPAGENAME",
        "TALKPAGENAME",
        "SUBJECTPAGENAME",
        "ARTICLEPAGENAME",
        "SITENAME",
        "SERVER",
        "SERVERNAME",
        "SCRIPTPATH",
        "STYLEPATH",
        "CURRENTYEAR",
        "CURRENTMONTH",
        "CURRENTMONTHNAME",
        "CURRENTDAY",
        "CURRENTDAY2",
        "CURRENTDAYNAME",
        "CURRENTTIME",
        "CURRENTHOUR",
        "CURRENTWEEK",
        "CURRENTTIMESTAMP",
        "LOCALYEAR",
        "LOCALMONTH",
        "LOCALDAY",
        "LOCALTIME",
        "LOCALTIMESTAMP",
        "NUMBEROFPAGES",
        "NUMBEROFARTICLES",
        "NUMBEROFFILES",
        "NUMBEROFEDITS",
        "NUMBEROFUSERS",
        "NUMBEROFADMINS",
        "NUMBEROFACTIVEUSERS",
        "REVISIONID",
        "REVISIONDAY",
        "REVISIONMONTH",
        "REVISIONYEAR",
        "REVISIONTIMESTAMP",
        "REVISIONUSER",
        "PAGEID",
        "CONTENTLANGUAGE",
        "DISPLAYTITLE",
        "DEFAULTSORT",
        "DEFAULTSORTKEY",
        "DEFAULTCATEGORYSORT",
        "LC",
        "UC",
        "LCFIRST",
        "UCFIRST",
        "URLENCODE",
        "ANCHORENCODE",
        "FULLURL",
        "LOCALURL",
        "CANONICALURL",
        "FILEPATH",
        "NS",
        "NSE",
        "PADLEFT",
        "PADRIGHT",
        "PLURAL",
        "GENDER",
        "GRAMMAR",
        "FORMATNUM",
        "FORMATDATE",
        "TAG",
        "PAGESIZE",
        "PROTECTIONLEVEL",
        "PAGESINCATEGORY",
        "PAGESINCAT",
        "NUMBERINGROUP",
        "SPECIAL",
        "SPECIALE",
        "SPECIALPAGE",
        "DIRMARK",
        "DIRECTIONMARK",
        "LANGUAGE",
        "!",
        "=",
    ]
)


@dataclass
class Links:
    """Link targets of one revision, in the shape of MediaWiki's link tables."""

    pages: set[tuple[int, str]] = field(default_factory=set)
    templates: set[tuple[int, str]] = field(default_factory=set)
    categories: dict[str, str] = field(default_factory=dict)  # category dbkey -> sort key prefix
    images: set[str] = field(default_factory=set)
    external: set[str] = field(default_factory=set)
    langlinks: dict[str, str] = field(default_factory=dict)  # language code -> title
    redirect: Title | None = None
    defaultsort: str = ""
    interwiki: set[tuple[str, str]] = field(default_factory=set)  # (prefix, title)
    props: dict[str, str] = field(default_factory=dict)  # page properties (page_props rows)
    # Files the text embeds (`[[File:…]]`, not `[[:File:…]]` or `[[Media:…]]`): a missing one
    # puts the page in the broken-file tracking category.
    embedded_files: set[str] = field(default_factory=set)
    # Pages linked with a section (`[[Page#Section]]`): a link to the page itself with a
    # section is a real link, recorded in pagelinks, where a bare one is a self-link.
    with_fragment: set[tuple[int, str]] = field(default_factory=set)

    def set_defaultsort(self, key: str) -> None:
        """`{{DEFAULTSORT:key}}`: the page property as written (escaped, as `{{PAGENAME}}` gives
        it), the sort key prefix with its character references read, as MediaWiki keeps both."""
        self.props["defaultsort"] = key
        self.defaultsort = decode_char_refs(key)

    def page_targets(self, own: tuple[int, str]) -> set[tuple[int, str]]:
        """The pagelinks targets of the page `own`: its links but a bare link to itself."""
        if own in self.pages and own not in self.with_fragment:
            return self.pages - {own}
        return set(self.pages)


def redirect_target(text: str, parser: TitleParser) -> Title | None:
    match = _REDIRECT.match(text)
    if not match:
        return None
    try:
        title = parser.parse(match.group(1).strip())
    except InvalidTitle:
        return None
    if title.ns == NS_SPECIAL and not title.dbkey:
        return None
    return title


def _template_title(name: str, parser: TitleParser) -> Title | None:
    name = name.strip()
    if not name:
        return None
    lowered = name.lower()
    if lowered.startswith(_MAGIC_PREFIXES):
        return None
    head = name.split(":", 1)[0].strip()
    if head.upper() in _MAGIC_WORDS and (":" in name or head == name):
        return None
    try:
        title = parser.parse(name, NS_TEMPLATE)
    except InvalidTitle:
        return None
    if title.interwiki or not title.dbkey or title.ns == NS_SPECIAL:
        return None
    return title


def extract_links(text: str, parser: TitleParser, languages: frozenset[str]) -> Links:
    """All link-table rows a page with this text has (MediaWiki's LinksUpdate input)."""
    links = Links()
    links.redirect = redirect_target(text, parser)
    # The page as the parser reads it: comments and `<includeonly>` parts gone, extension tags
    # (`<nowiki>`, `<pre>` …) a character no title or URL can hold, templates as written.
    flat = _Flattener(parser, links).flatten(preprocess(text, headings=False))
    for start, title_end, end in _bracket_links(flat):
        _wikilink(flat, start, title_end, end, parser, languages, links)
    bare = _EXTERNAL.sub(lambda m: _external(m.group(1), links), flat)
    for match in _FREE_URL.finditer(bare):
        _free_url(match.group(0), links)
    for match in _DOUBLE_UNDERSCORE.finditer(flat):
        word = match.group(1).lower()
        links.props[_UNDERSCORE_ALIASES.get(word, word)] = ""
    if links.redirect is not None and not links.redirect.interwiki:
        target = links.redirect
        if target.ns == NS_MEDIA:
            links.images.add(target.dbkey)
        elif target.ns >= 0:
            links.pages.add((target.ns, target.dbkey))
    return links


class _Flattener:
    """The text of a preprocessor tree with what holds no link taken out; the templates it
    calls (and the `DEFAULTSORT` and `DISPLAYTITLE` it sets) recorded on the way."""

    def __init__(self, parser: TitleParser, links: Links) -> None:
        self.parser = parser
        self.links = links

    def flatten(self, node: Node) -> str:
        if isinstance(node, str):
            return node
        name = node.name
        if name in ("comment", "ignore") or name.startswith("@"):
            return ""
        if name == "ext":
            return _HIDDEN
        pieces = [self.flatten(child) for child in node.children]
        inner = "".join(pieces)
        if name == "template":
            first = node.children[0]
            self._template(pieces[1 if isinstance(first, Element) and first.name[0] == "@" else 0])
            return "{{" + inner + "}}"
        if name == "tplarg":
            return "{{{" + inner + "}}}"
        if name == "part":
            return "|" + inner
        return inner

    def _template(self, name: str) -> None:
        """A call whose title reads `name`: a template, or the sort key or display title."""
        head = name.split(":", 1)[0].strip().upper()
        links = self.links
        if head in {"DEFAULTSORT", "DEFAULTSORTKEY", "DEFAULTCATEGORYSORT"} and ":" in name:
            links.set_defaultsort(name.split(":", 1)[1].strip())
            return
        if head == "DISPLAYTITLE" and ":" in name:
            links.props["displaytitle"] = inline_html(name.split(":", 1)[1].strip())
            return
        target = _template_title(name, self.parser)
        if target is not None:
            links.templates.add((target.ns, target.dbkey))


def _bracket_links(text: str) -> list[tuple[int, int, int]]:
    """Each `[[…]]` of the text, nested ones too (a file's caption may hold links): where its
    target starts, where the target ends (at the first `|` of its own level, or at its end)
    and where it ends, in the order they close. One with another `[[` in its target is left
    out: brackets make no title (and its target is never read, so nesting costs no more)."""
    found: list[tuple[int, int, int]] = []
    open_at: list[list[int]] = []  # [start, first pipe or -1, 1 when its target holds `[[`]
    for match in _BRACKETS.finditer(text):
        token = match.group(0)
        if token == "[[":
            if open_at and open_at[-1][1] < 0:
                open_at[-1][2] = 1
            open_at.append([match.end(), -1, 0])
        elif token == "|":
            if open_at and open_at[-1][1] < 0:
                open_at[-1][1] = match.start()
        elif open_at:
            start, pipe, nested = open_at.pop()
            if not nested:
                end = match.start()
                found.append((start, end if pipe < 0 else pipe, end))
    return found


def _external(url: str, links: Links) -> str:
    """A bracketed external link `[url label]`, recorded and taken out of the text so that its
    URL is not read again as a free one."""
    links.external.add(url)
    return _HIDDEN


def _free_url(url: str, links: Links) -> None:
    """Parser::makeFreeExternalLink: trailing punctuation is not part of the URL, nor a closing
    parenthesis without an opening one."""
    trailing = _TRAILING_PUNCTUATION if "(" in url else _TRAILING_PUNCTUATION + ")"
    url = url.rstrip(trailing)
    scheme = _URL.match(url)
    if scheme is not None and scheme.end() < len(url):
        links.external.add(url)


def _wikilink(
    text: str,
    start: int,
    title_end: int,
    end: int,
    parser: TitleParser,
    languages: frozenset[str],
    links: Links,
) -> None:
    """The link `[[…]]` whose target is text[start:title_end] and label, if it has one,
    text[title_end + 1:end]."""
    raw = text[start:title_end].strip()
    if not raw or "{{" in raw:
        return
    leading_colon = raw.startswith(":")
    prefix = raw.lstrip(":").split(":", 1)[0].strip().lower()
    if not leading_colon and ":" in raw and prefix in languages:
        links.langlinks.setdefault(prefix, raw.split(":", 1)[1].strip())
        return
    try:
        title = parser.parse(raw)
    except InvalidTitle:
        return
    if title.interwiki:
        links.interwiki.add((title.interwiki, title.dbkey))
        return
    if not title.dbkey:
        return
    if not leading_colon and title.ns == NS_CATEGORY:
        label = text[title_end + 1 : end] if title_end < end else ""
        sortkey = decode_char_refs(label.strip())
        links.categories.setdefault(title.dbkey, sortkey)
        return
    if not leading_colon and title.ns == NS_FILE:
        links.images.add(title.dbkey)
        links.embedded_files.add(title.dbkey)
        return
    if title.ns == NS_MEDIA:
        links.images.add(title.dbkey)
        return
    if title.ns == NS_SPECIAL:
        return
    links.pages.add((title.ns, title.dbkey))
    if title.fragment:
        links.with_fragment.add((title.ns, title.dbkey))
