"""What a revision's wikitext links to: pages, templates, categories, files, external URLs,
language links and the redirect target, read once per save with mwparserfromhell.

Templates are the ones the text transcludes directly; templates reached only through other templates
are not followed (that needs template expansion, which the renderer will bring).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import mwparserfromhell
from mwparserfromhell.nodes import ExternalLink, Template, Wikilink

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
from atrium.wiki.wikitext.html.page import inline_html
from atrium.wiki.wikitext.linkfilter import URL_PROTOCOLS

_REDIRECT = re.compile(r"^\s*#REDIRECT\s*:?\s*\[\[([^\]\|\n]+)(?:\|[^\]]*)?\]\]", re.I)
# Every protocol of $wgUrlProtocols makes an external link, as in MediaWiki's link tables.
_URL = re.compile("^(?:" + "|".join(re.escape(p) for p in (*URL_PROTOCOLS, "//")) + ")", re.I)
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
    code = mwparserfromhell.parse(text, skip_style_tags=True)
    for node in code.ifilter(recursive=True):
        if isinstance(node, Wikilink):
            _wikilink(node, parser, languages, links)
        elif isinstance(node, Template):
            name = str(node.name)
            head = name.split(":", 1)[0].strip().upper()
            if head in {"DEFAULTSORT", "DEFAULTSORTKEY", "DEFAULTCATEGORYSORT"} and ":" in name:
                links.defaultsort = name.split(":", 1)[1].strip()
                links.props["defaultsort"] = links.defaultsort
                continue
            if head == "DISPLAYTITLE" and ":" in name:
                links.props["displaytitle"] = inline_html(name.split(":", 1)[1].strip())
                continue
            target = _template_title(name, parser)
            if target is not None:
                links.templates.add((target.ns, target.dbkey))
        elif isinstance(node, ExternalLink):
            url = str(node.url).strip()
            if _URL.match(url):
                links.external.add(url)
    for match in _DOUBLE_UNDERSCORE.finditer(_strip_nowiki(text)):
        word = match.group(1).lower()
        links.props[_UNDERSCORE_ALIASES.get(word, word)] = ""
    if links.redirect is not None and not links.redirect.interwiki:
        target = links.redirect
        if target.ns == NS_MEDIA:
            links.images.add(target.dbkey)
        elif target.ns >= 0:
            links.pages.add((target.ns, target.dbkey))
    return links


def _wikilink(node: Wikilink, parser: TitleParser, languages: frozenset[str], links: Links) -> None:
    raw = str(node.title).strip()
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
        sortkey = str(node.text).strip() if node.text is not None else ""
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


_NOWIKI = re.compile(r"<nowiki>.*?</nowiki>|<pre>.*?</pre>|<!--.*?-->", re.S | re.I)


def _strip_nowiki(text: str) -> str:
    return _NOWIKI.sub("", text)
