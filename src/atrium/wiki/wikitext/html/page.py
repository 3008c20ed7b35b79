"""Wikitext to HTML for reading pages in a browser, in the shape of MediaWiki's parser output.

Covers headings, bold and italic, lists (`*`, `#`, `;`, `:`), tables, `<nowiki>`, `<pre>` and
space-indented preformatted text, horizontal rules, internal links (red links for missing pages,
link trails, self links), external links (bracketed, numbered and bare), categories (collected
into the box at the bottom), language links, templates (expanded by `expand.Expander` first),
`[[File:…]]` images (`render_media`) and the table of contents (`render_toc`).

Safety: every character of the text is HTML-escaped; only a fixed list of formatting tags comes
back, with a fixed list of attributes whose values are escaped again, and URLs are only produced
for the schemes of `_URL_SCHEMES`. Nothing the author wrote can become a script or a handler.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import quote

from atrium.wiki.titles import NS_CATEGORY, NS_FILE, NS_MEDIA, InvalidTitle, TitleParser
from atrium.wiki.wikitext.expand import (
    ARGUMENT_OMITTED,
    TEMPLATE_OMITTED,
    Expander,
    ExpansionStats,
    TemplateLoader,
)
from atrium.wiki.wikitext.html.blocks import Paragraphs, serialize, wrap_loose_text
from atrium.wiki.wikitext.html.charrefs import restore_char_refs
from atrium.wiki.wikitext.html.css import check_css
from atrium.wiki.wikitext.html.media import FileLookup, FileSize, MediaLinks, parse_options
from atrium.wiki.wikitext.html.tables import add_tbody, handle_tables
from atrium.wiki.wikitext.html.toc import TocSwitches, add_toc, take_switches
from atrium.wiki.wikitext.linkfilter import URL_PROTOCOLS

ExistenceCheck = Callable[[set[tuple[int, str]]], set[tuple[int, str]]]

# $wgUrlProtocols: none of them can carry a script (no javascript:, data:, vbscript:).
_URL_SCHEMES = "(?:" + "|".join(re.escape(p) for p in (*URL_PROTOCOLS, "//")) + ")"
_EXTERNAL = re.compile(r"\[(" + _URL_SCHEMES + r"[^\s\[\]<>\"]+)(?:\s+([^\]\n]*))?\]", re.I)
_FREE_URL = re.compile(
    r"(?<![\w/\"'=])((?:https?|ftps?)://[^\s\[\]<>\"]+[^\s\[\]<>\".,;:!?)'])", re.I
)
_LINK = re.compile(r"\[\[([^\[\]\|\n]+)(?:\|((?:[^\[\]]|\[(?!\[)|\](?!\]))*))?\]\]([a-z]*)")
_HEADING = re.compile(r"^(={1,6})(.+?)\1\s*$")
_RULE = re.compile(r"^-{4,}")
_ALLOWED_TAGS = (
    "b|i|u|s|del|ins|strike|big|small|sub|sup|code|tt|kbd|var|samp|cite|q|em|strong|abbr|"
    "span|div|p|br|hr|blockquote|center|font|h[1-6]|ul|ol|li|dl|dt|dd|table|tr|td|th|caption|"
    "tbody|thead|tfoot|ruby|rb|rt|rp|mark|bdi|bdo|wbr|data|time"
)
_TAG = re.compile(r"&lt;(/?)(" + _ALLOWED_TAGS + r")\b((?:[^&]|&(?!gt;))*?)(/?)&gt;", re.I)
_ATTR = re.compile(r"""([a-zA-Z][-a-zA-Z]*)\s*=\s*(?:"(.*?)"|'(.*?)'|([^\s"'&>]+))""")
_SAFE_ATTRS = frozenset(
    [
        *("class", "id", "title", "lang", "dir", "colspan", "rowspan", "align", "width", "style"),
        *("height", "valign", "bgcolor", "scope", "headers", "abbr", "axis", "border"),
        *("cellpadding", "cellspacing", "summary", "frame", "rules", "nowrap"),
    ]
)
_MARK = "\ue001"
_MARK_RE = re.compile(_MARK + r"(\d+)" + _MARK)
_NOWIKI = re.compile(r"<nowiki>(.*?)</nowiki>|<nowiki\s*/>", re.S | re.I)
_PRE = re.compile(r"<pre>(.*?)</pre>", re.S | re.I)
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
# The expander's limit warnings stay in the HTML, as MediaWiki's strip items keep them.
_LIMIT_WARNING = re.compile(f"{re.escape(TEMPLATE_OMITTED)}|{re.escape(ARGUMENT_OMITTED)}")
REDIRECT_LINE = re.compile(r"^\s*#REDIRECT\s*:?\s*\[\[[^\]]*\]\][^\n]*\n?", re.I)
_QUOTES = re.compile(r"'{2,}")


@dataclass
class Rendered:
    html: str
    categories: list[str] = field(default_factory=list)  # category dbkeys, in order of use
    languages: list[tuple[str, str]] = field(default_factory=list)
    templates: list[tuple[int, str]] = field(default_factory=list)
    # The text after template expansion (the redirect line removed first), which the link
    # tables are read from; `volatile` when it depends on the clock (CURRENT… magic words).
    expanded: str = ""
    volatile: bool = False
    defaultsort: str | None = None  # the last `{{DEFAULTSORT:…}}` of the expansion
    stats: ExpansionStats = field(default_factory=ExpansionStats)
    unstripped: int = 0  # characters of `<nowiki>` and `<pre>` content put back
    # How many categories came before the first embedded file that does not exist (where
    # MediaWiki adds its broken-file tracking category), None when every file exists.
    broken_file_at: int | None = None


def attrs(raw: str) -> str:
    """The safe attributes of an escaped attribute string, re-escaped."""
    out = []
    for match in _ATTR.finditer(raw):
        name = match.group(1).lower()
        value = html.unescape(next(g for g in match.groups()[1:] if g is not None))
        if name not in _SAFE_ATTRS:
            continue
        if name == "style":
            value = check_css(value)
        out.append(f' {name}="{html.escape(value, quote=True)}"')
    return "".join(out)


def anchor(text: str) -> str:
    """MediaWiki's HTML5 fragment: spaces to underscores, the rest kept."""
    return re.sub(r"\s+", "_", html.unescape(re.sub(r"<[^>]*>", "", text)).strip())


def do_quotes(line: str) -> str:
    """`''italic''`, `'''bold'''` and `'''''both'''''` on one line, MediaWiki's way."""
    if "''" not in line:
        return line
    parts = _QUOTES.split(line)
    runs = _QUOTES.findall(line)
    lengths = []
    for run in runs:
        n = len(run)
        lengths.append(n if n in (2, 3, 5) else 3 if n == 4 else 5)
    text: list[str] = [parts[0]]
    for i, run in enumerate(runs):
        n = len(run)
        extra = "'" * (n - lengths[i]) if n == 4 else "'" * (n - 5) if n > 5 else ""
        text.append(extra)
        text.append("\x00" + str(lengths[i]))
        text.append(parts[i + 1])
    # An odd count of both bold and italic: turn one bold into an apostrophe + italic.
    bold = sum(1 for n in lengths if n == 3)
    italic = sum(1 for n in lengths if n == 2)
    if bold % 2 == 1 and italic % 2 == 1:
        for i, token in enumerate(text):
            if token == "\x003":
                text[i] = "'" + "\x002"
                break
    out: list[str] = []
    state = ""  # "", "i", "b", "bi", "ib"
    for token in text:
        if not token.startswith("\x00"):
            out.append(token)
            continue
        if token.startswith("'"):
            out.append("'")
            token = token[1:]
        n = int(token[1:])
        if n == 2:
            if state == "i":
                out.append("</i>")
                state = ""
            elif state == "bi":
                out.append("</i>")
                state = "b"
            elif state == "ib":
                out.append("</b></i><b>")
                state = "b"
            elif state == "b":
                out.append("<i>")
                state = "bi"
            else:
                out.append("<i>")
                state += "i"
        elif n == 3:
            if state == "b":
                out.append("</b>")
                state = ""
            elif state == "bi":
                out.append("</i></b><i>")
                state = "i"
            elif state == "ib":
                out.append("</b>")
                state = "i"
            elif state == "i":
                out.append("<b>")
                state = "ib"
            else:
                out.append("<b>")
                state += "b"
        else:
            if state == "b":
                out.append("</b><i>")
                state = "i"
            elif state == "i":
                out.append("</i><b>")
                state = "b"
            elif state == "bi":
                out.append("</i></b>")
                state = ""
            elif state == "ib":
                out.append("</b></i>")
                state = ""
            else:
                out.append("<b><i>")
                state = "bi"
    closing = {"b": "</b>", "i": "</i>", "bi": "</i></b>", "ib": "</b></i>"}
    out.append(closing.get(state, ""))
    return "".join(out)


class Renderer:
    """Renders one page; `exists` answers which link targets exist (one call per page)."""

    def __init__(
        self,
        parser: TitleParser,
        page_title: tuple[int, str],
        loader: TemplateLoader,
        exists: ExistenceCheck,
        languages: Iterable[str] = (),
        article_path: str = "/wiki/",
        script_path: str = "/w",
        files: FileLookup | None = None,
        variables: Mapping[str, str] | None = None,
        images_path: str = "/images/",
        on_thumb: Callable[[str, int], None] | None = None,
        interwiki: Mapping[str, str] | None = None,
    ) -> None:
        self.parser = parser
        self.interwiki = dict(interwiki or {})
        self.variables = variables
        self.page = page_title
        self.loader = loader
        self.exists = exists
        self.languages = frozenset(languages)
        self.article_path = article_path
        self.script_path = script_path
        self._held: list[str] = []
        self._known: set[tuple[int, str]] = set()
        self._autonumber = 0
        self.result = Rendered("")
        self.files = files
        self.toc = TocSwitches()
        self._files: dict[str, FileSize] = {}
        self.media = MediaLinks(
            lambda prefixed: self.article_path + quote(prefixed, safe=":/!$()*,;@~"),
            self._media_link,
            images_path=images_path,
            script_path=script_path,
            on_thumb=on_thumb,
        )

    # --- helpers ----------------------------------------------------------------------------

    def hold(self, fragment: str) -> str:
        """Keep finished HTML out of later passes."""
        self._held.append(fragment)
        return f"{_MARK}{len(self._held) - 1}{_MARK}"

    def _strip(self, content: str, shape: str) -> str:
        """`<nowiki>` or `<pre>` content, escaped and held (counted for the limit report)."""
        self.result.unstripped += len(content)
        return self.hold(shape.format(html.escape(content, quote=False)))

    def release(self, text: str) -> str:
        for _ in range(4):
            if _MARK not in text:
                break
            text = _MARK_RE.sub(lambda m: self._held[int(m.group(1))], text)
        return text

    def page_url(self, ns: int, dbkey: str, fragment: str = "") -> str:
        prefixed = self.parser.prefixed_dbkey(ns, dbkey)
        url = self.article_path + quote(prefixed, safe=":/!$()*,;@~")
        if fragment:
            url += "#" + quote(fragment.replace(" ", "_"), safe=":/!$()*,;@~.")
        return url

    def edit_url(self, ns: int, dbkey: str) -> str:
        prefixed = quote(self.parser.prefixed_dbkey(ns, dbkey), safe=":/!$()*,;@~")
        return f"{self.script_path}/index.php?title={prefixed}&action=edit&redlink=1"

    # --- the page ---------------------------------------------------------------------------

    def render(self, text: str) -> Rendered:
        expander = Expander(self.parser, self.loader, self.page, variables=self.variables)
        text = REDIRECT_LINE.sub("", text)
        text = expander.expand(text)
        self.result.templates = expander.used
        self.result.expanded = text
        self.result.volatile = expander.volatile
        self.result.defaultsort = expander.defaultsort
        self.result.stats = expander.stats
        if expander.stats.exceeded:
            text = _LIMIT_WARNING.sub(lambda m: self.hold(m.group(0)), text)
        text = _COMMENT.sub("", text)
        text = _NOWIKI.sub(lambda m: self._strip(m.group(1) or "", "{}"), text)
        text = _PRE.sub(lambda m: self._strip(m.group(1), "<pre>{}</pre>"), text)
        text, self.toc = take_switches(text, self.hold)
        targets = self._targets(text)
        self._known = self.exists(targets)
        names = {key for ns, key in targets if ns == NS_FILE}
        if self.files is not None and names:
            self._files = self.files(names)
        text = html.escape(text, quote=False)
        text = _TAG.sub(self._tag, text)
        text = self._links(text)
        text = _EXTERNAL.sub(self._external, text)
        text = _FREE_URL.sub(self._free_url, text)
        body = serialize(wrap_loose_text(add_tbody(self.release(self._blocks(text)))))
        body = restore_char_refs(body)
        self.result.html = '<div class="mw-parser-output">' + add_toc(body, self.toc) + "</div>"
        return self.result

    def _targets(self, text: str) -> set[tuple[int, str]]:
        found: set[tuple[int, str]] = set()
        for match in _LINK.finditer(text):
            title = self._title(match.group(1))
            if title is not None and title[0] >= 0:
                found.add(title[:2])
        return found

    def _title(self, raw: str) -> tuple[int, str, str] | None:
        target = html.unescape(raw).strip()
        try:
            title = self.parser.parse(target.lstrip(":"))
        except InvalidTitle:
            return None
        if title.interwiki:
            return None
        return title.ns, title.dbkey, title.fragment

    def _tag(self, match: re.Match[str]) -> str:
        closing, name, raw_attrs, selfclose = match.groups()
        name = name.lower()
        if closing:
            return self.hold(f"</{name}>")
        return self.hold(f"<{name}{attrs(raw_attrs)}{'/' if selfclose else ''}>")

    def _links(self, text: str) -> str:
        # Twice: links inside a file's caption first, then the file link around them.
        return _LINK.sub(self._link, _LINK.sub(self._link, text))

    def _media_link(self, target: str) -> tuple[str, str] | None:
        """`link=` of a file: an external URL or a page."""
        if re.match(_URL_SCHEMES, target, re.I):
            return target, target
        title = self._title(html.escape(target, quote=False))
        if title is None:
            return None
        ns, dbkey, fragment = title
        return self.page_url(ns, dbkey, fragment), self.parser.prefixed_text(ns, dbkey)

    def _file(self, dbkey: str, label: str | None) -> str:
        """`[[File:…]]`: the image (or the red link to upload it), held as finished HTML."""
        opts = parse_options(label.split("|") if label else [])
        opts.alt = html.unescape(opts.alt) if opts.alt is not None else None
        opts.link = html.unescape(opts.link) if opts.link is not None else None
        caption_html = self.release(do_quotes(opts.caption.strip()))
        caption_text = html.unescape(re.sub(r"<[^>]*>", "", caption_html))
        file = self._files.get(dbkey)
        if file is None:
            if self.result.broken_file_at is None:
                self.result.broken_file_at = len(self.result.categories)
            return self.hold(self.media.missing(dbkey, opts, caption_html))
        return self.hold(self.media.image(dbkey, file, opts, caption_html, caption_text))

    def _link(self, match: re.Match[str]) -> str:
        raw_target, label, trail = match.group(1), match.group(2), match.group(3)
        target = html.unescape(raw_target).strip()
        colon = target.startswith(":")
        bare = target.lstrip(":")
        prefix = bare.split(":", 1)[0].strip().lower()
        if not colon and ":" in bare and prefix in self.languages:
            self.result.languages.append((prefix, bare.split(":", 1)[1].strip()))
            return ""
        if ":" in bare and prefix in self.interwiki:
            return self._interwiki(prefix, bare, label, trail)
        if bare.startswith("#"):
            shown = label if label is not None else raw_target
            return (
                self.hold(f'<a href="#{html.escape(anchor(bare[1:]))}">')
                + shown
                + trail
                + (self.hold("</a>"))
            )
        title = self._title(raw_target)
        if title is None:
            return match.group(0)
        ns, dbkey, fragment = title
        if ns == NS_CATEGORY and not colon:
            if dbkey not in self.result.categories:
                self.result.categories.append(dbkey)
            return ""
        if ns == NS_FILE and not colon:
            return self._file(dbkey, label) + trail
        if ns == NS_MEDIA:
            ns = NS_FILE
        shown_title = self.parser.prefixed_text(ns, dbkey)
        if label is None or label == "":
            label = raw_target.lstrip(":").strip()
        shown = label + trail
        if (ns, dbkey) == self.page and not fragment:
            return self.hold('<a class="mw-selflink selflink">') + shown + self.hold("</a>")
        safe_title = html.escape(shown_title, quote=True)
        if (ns, dbkey) in self._known or ns < 0:
            url = html.escape(self.page_url(ns, dbkey, fragment), quote=True)
            head = f'<a href="{url}" title="{safe_title}">'
        else:
            url = html.escape(self.edit_url(ns, dbkey), quote=True)
            head = f'<a href="{url}" class="new" title="{safe_title} (page does not exist)">'
        return self.hold(head) + shown + self.hold("</a>")

    def _interwiki(self, prefix: str, bare: str, label: str | None, trail: str) -> str:
        """An interwiki link, as MediaWiki draws one (`extiw`), to the prefix's URL."""
        rest = bare.split(":", 1)[1].strip()
        target = quote(rest.replace(" ", "_"), safe=";:@$!*(),/~")
        url = html.escape(self.interwiki[prefix].replace("$1", target), quote=True)
        shown = (label if label else html.escape(bare, quote=False)) + trail
        title = html.escape(bare, quote=True)
        return (
            self.hold(f'<a href="{url}" class="extiw" title="{title}">') + shown + self.hold("</a>")
        )

    def _external(self, match: re.Match[str]) -> str:
        url = html.unescape(match.group(1))
        label = match.group(2)
        href = html.escape(url, quote=True)
        if not label:
            self._autonumber += 1
            return self.hold(
                f'<a rel="nofollow" class="external autonumber" href="{href}">'
                f"[{self._autonumber}]</a>"
            )
        return (
            self.hold(f'<a rel="nofollow" class="external text" href="{href}">')
            + label
            + self.hold("</a>")
        )

    def _free_url(self, match: re.Match[str]) -> str:
        url = html.unescape(match.group(1))
        href = html.escape(url, quote=True)
        return self.hold(f'<a rel="nofollow" class="external free" href="{href}">{href}</a>')

    # --- block structure ----------------------------------------------------------------------

    def _blocks(self, text: str) -> str:
        """Tables, rules and headings as HTML lines, bold and italic line by line (the order of
        Parser::internalParse), then the block-level pass for lists and paragraphs."""
        lines = handle_tables(text, attrs).split("\n")
        paragraphs = Paragraphs()
        for n, line in enumerate(lines):
            heading = _HEADING.match(line)
            if heading:
                level = len(heading.group(1))
                inner = do_quotes(heading.group(2).strip())
                ident = html.escape(anchor(self.release(inner)), quote=True)
                line = f'<h{level}><span class="mw-headline" id="{ident}">{inner}</span></h{level}>'
            elif _RULE.match(line):
                line = "<hr />" + do_quotes(_RULE.sub("", line, count=1))
            else:
                line = do_quotes(line)
            paragraphs.line(line, self.release(line), n == len(lines) - 1)
        return paragraphs.finish()


def inline_html(text: str) -> str:
    """A one-line fragment (a display title): escaped, with bold and italic."""
    return do_quotes(html.escape(text, quote=False))
