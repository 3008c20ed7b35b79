"""An interface message's wikitext as HTML, the way MediaWiki's `Message::parse()` renders it.

`errorformat=html` shows errors and warnings through this: `<nowiki>`, the formatting tags the
sanitizer keeps (`<kbd>`, `<var>`, `<code>`, …; others are escaped), character references
(valid ones kept, named ones other than the XML five as numeric references, a bare `&` escaped),
`'''bold'''` and `''italic''`, internal links (blue when the page exists or is a special page,
red with the edit URL otherwise), bracketed and bare external links, the French-space armouring
of the parser's last pass (`Sanitizer::armorFrenchSpaces`), and paragraphs, with the outer `<p>`
of a one-paragraph message stripped (`Parser::stripOuterParagraph`).

The page set a message links to is asked of the database before rendering (`link_targets`), so
rendering itself stays synchronous.
"""

from __future__ import annotations

import html
import re
from html.entities import name2codepoint
from urllib.parse import quote

from atrium.wiki.titles import NS_CATEGORY, NS_FILE, NS_MEDIA, InvalidTitle, TitleParser
from atrium.wiki.wikitext.html.page import attrs, do_quotes

Known = set[tuple[int, str]]

_MARK = "\x7f"
_HELD = re.compile(_MARK + r"(\d+)" + _MARK)
_NOWIKI = re.compile(r"<nowiki>(.*?)</nowiki>", re.S | re.I)
_KEPT_TAGS = (
    "b|i|u|s|del|ins|strike|big|small|sub|sup|code|tt|kbd|var|samp|cite|q|em|strong|abbr|"
    "span|br|bdi|bdo|mark|dfn"
)
_TAG = re.compile(r"<(/?)(" + _KEPT_TAGS + r")\b([^<>]*?)(/?)>", re.I)
_ENTITY = re.compile(r"&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|([A-Za-z][A-Za-z0-9]*));")
_LINK = re.compile(r"\[\[([^\[\]|\n]+)(?:\|((?:[^\[\]]|\[(?!\[)|\](?!\]))*))?\]\]([a-z]*)")
_SCHEMES = r"(?:https?://|ftps?://|mailto:|irc://|ircs://|news:|//)"
_EXTERNAL = re.compile(r"\[(" + _SCHEMES + r"[^\s\[\]<>\"\x7f]+)(?:[ \t]+([^\]\n]*))?\]", re.I)
_FREE_URL = re.compile(r"\b((?:https?|ftps?)://[^\s\[\]<>\"\x7f]+)", re.I)
_URL_END = re.compile(r"(?:&(?:lt|gt|quot);.*|[.,;:!?)']+)$", re.S)
_FRENCH_BEFORE = re.compile(r" (?=[?:;!%»›](?!\w))")
_FRENCH_AFTER = re.compile(r"([«‹]) ")
_XML_ENTITIES = frozenset({"lt", "gt", "amp", "quot", "apos"})
_URL_SAFE = ":/!$()*,;@~"


class MessageHtml:
    """One rendering of message wikitext; `known` holds the link targets that exist, and
    `redirects` those of them that are redirects (their links get the `mw-redirect` class)."""

    def __init__(
        self,
        parser: TitleParser,
        known: Known,
        article_path: str = "/wiki/",
        redirects: Known | None = None,
    ) -> None:
        self.parser = parser
        self.known = known
        self.redirects = redirects or set()
        self.article_path = article_path
        self.script_path = article_path.rsplit("/wiki/", 1)[0] + "/w"
        self._held: list[str] = []

    def hold(self, fragment: str) -> str:
        self._held.append(fragment)
        return f"{_MARK}{len(self._held) - 1}{_MARK}"

    def release(self, text: str) -> str:
        while _MARK in text:
            replaced = _HELD.sub(lambda m: self._held[int(m.group(1))], text)
            if replaced == text:
                break
            text = replaced
        return text

    def render(self, wikitext: str) -> str:
        self._held = []
        text = _NOWIKI.sub(lambda m: self.hold(_escape(m.group(1))), wikitext)
        text = _TAG.sub(self._tag, text)
        text = _ENTITY.sub(lambda m: self.hold(_entity(m)), text)
        text = _escape(text)
        text = _LINK.sub(self._link, text)
        text = _EXTERNAL.sub(self._external, text)
        text = _FREE_URL.sub(self._free, text)
        text = "\n".join(do_quotes(line) for line in text.split("\n"))
        text = _FRENCH_AFTER.sub(r"\1&#160;", _FRENCH_BEFORE.sub("&#160;", text))
        # The HTML serializer writes a no-break space as a character reference.
        return self.release(_paragraphs(text)).replace("\u00a0", "&#160;")

    def _tag(self, match: re.Match[str]) -> str:
        closing, name, raw, selfclose = match.groups()
        name = name.lower()
        if closing:
            return self.hold(f"</{name}>")
        if name == "br":
            return self.hold("<br />")
        return self.hold(f"<{name}{attrs(html.escape(raw))}{'/' if selfclose else ''}>")

    def _link(self, match: re.Match[str]) -> str:
        raw_target, label, trail = match.group(1), match.group(2), match.group(3)
        found = _title(self.parser, raw_target)
        if found is None:
            return match.group(0)
        ns, dbkey, fragment = found
        if ns == NS_MEDIA:
            ns = NS_FILE
        shown = (label if label else raw_target.lstrip(":").strip()) + trail
        title = html.escape(self.parser.prefixed_text(ns, dbkey), quote=True)
        prefixed = quote(self.parser.prefixed_dbkey(ns, dbkey), safe=_URL_SAFE)
        if ns < 0 or (ns, dbkey) in self.known:
            url = self.article_path + prefixed
            if fragment:
                url += "#" + quote(fragment.replace(" ", "_"), safe=_URL_SAFE + ".")
            css = ' class="mw-redirect"' if (ns, dbkey) in self.redirects else ""
            head = f'<a href="{html.escape(url, quote=True)}"{css} title="{title}">'
        else:
            url = f"{self.script_path}/index.php?title={prefixed}&action=edit&redlink=1"
            head = (
                f'<a href="{html.escape(url, quote=True)}" class="new" '
                f'title="{title} (page does not exist)">'
            )
        return self.hold(head) + shown + self.hold("</a>")

    def _external(self, match: re.Match[str]) -> str:
        href = html.escape(html.unescape(match.group(1)), quote=True)
        label = match.group(2)
        if not label:
            return self.hold(f'<a rel="nofollow" class="external autonumber" href="{href}">[1]</a>')
        head = f'<a rel="nofollow" class="external text" href="{href}">'
        return self.hold(head) + label + self.hold("</a>")

    def _free(self, match: re.Match[str]) -> str:
        url = match.group(1)
        end = _URL_END.search(url)
        rest = ""
        if end is not None:
            url, rest = url[: end.start()], url[end.start() :]
        href = html.escape(html.unescape(url), quote=True)
        link = f'<a rel="nofollow" class="external free" href="{href}">{href}</a>'
        return self.hold(link) + rest


def link_targets(parser: TitleParser, wikitext: str) -> Known:
    """The pages a message's links point to, for the existence check before rendering."""
    found: Known = set()
    for match in _LINK.finditer(_NOWIKI.sub("", wikitext)):
        title = _title(parser, match.group(1))
        if title is not None and title[0] >= 0:
            ns = NS_FILE if title[0] == NS_MEDIA else title[0]
            found.add((ns, title[1]))
    return found


def _title(parser: TitleParser, raw: str) -> tuple[int, str, str] | None:
    target = html.unescape(raw).strip().lstrip(":")
    try:
        title = parser.parse(target)
    except InvalidTitle:
        return None
    if title.interwiki or (not title.dbkey):
        return None
    if title.ns == NS_CATEGORY and not raw.strip().startswith(":"):
        return None
    return title.ns, title.dbkey, title.fragment


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _entity(match: re.Match[str]) -> str:
    """Sanitizer::normalizeCharReferences: valid references kept, named ones made numeric."""
    decimal, hexadecimal, name = match.groups()
    if decimal is not None or hexadecimal is not None:
        return match.group(0)
    if name in _XML_ENTITIES:
        return match.group(0)
    if name in name2codepoint:
        return f"&#{name2codepoint[name]};"
    return "&amp;" + match.group(0)[1:]


def _paragraphs(text: str) -> str:
    blocks = [b.strip("\n") for b in re.split(r"\n\s*\n", text.strip("\n"))]
    blocks = [b for b in blocks if b]
    if len(blocks) <= 1:
        return blocks[0] if blocks else ""
    return "".join(f"<p>{b}\n</p>" for b in blocks)
