"""`action=parse`'s `prop` values, one small builder each, in the order MediaWiki's ApiParse
adds them to the result. Each builder reads the finished rendering (`Output`) and sets its keys."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from atrium.wiki.api.actions.parse_report import (
    categories_html,
    limit_report_data,
    limit_report_html,
)
from atrium.wiki.api.actions.parse_source import HEADING_SOURCE
from atrium.wiki.api.context import ApiContext
from atrium.wiki.messages.language_facts import autonym, name_in
from atrium.wiki.reads import parsing
from atrium.wiki.site import GENERATOR, Site
from atrium.wiki.titles import Title
from atrium.wiki.wikitext.preprocess import parsetree

_HEADING_HTML = re.compile(
    r'<h([1-6])><span class="mw-headline" id="([^"]*)">(.*?)</span></h\1>', re.S
)
_TAG = re.compile(r"<[^>]*>")
_KEPT_TAG = re.compile(r"</?(i|b|sup|sub|s|del|ins)\b")


@dataclass
class Output:
    """A parse's rendering with what the builders need beside it."""

    ctx: ApiContext
    params: dict[str, Any]
    title: Title
    text: str  # the source parsed
    parsed: parsing.Parsed
    body: str  # the HTML as `text` returns it
    headings_html: str  # the HTML before edit links, where sections are read
    wikitext: bool  # the content model is wikitext (other models have no links or sections)
    uselang: str = "en"  # the user language, which names the language links

    @property
    def fv(self) -> int:
        return self.ctx.fv

    def raw(self, value: Any) -> Any:
        """A value formatversion 1 wraps as `{"*": value}`."""
        return {"*": value} if self.ctx.fv < 2 else value


def _sections(site: Site, title: Title, body: str, source: str) -> list[dict[str, Any]]:
    """ParserOutput's sections: numbered by relative depth as the table of contents is, with the
    byte offset of each heading in the source."""
    # Byte offsets counted piece by piece: encoding each prefix whole is quadratic.
    offsets: list[int] = []
    offset = previous = 0
    for found in HEADING_SOURCE.finditer(source):
        offset += len(source[previous : found.start()].encode())
        previous = found.start()
        offsets.append(offset)
    out: list[dict[str, Any]] = []
    levels: list[int] = []  # heading level of each open toc level
    counters: list[int] = []
    shown = site.parser.prefixed_text(title.ns, title.dbkey)
    for index, match in enumerate(_HEADING_HTML.finditer(body), start=1):
        level, anchor, inner = int(match.group(1)), match.group(2), match.group(3)
        while levels and levels[-1] > level:
            levels.pop()
            counters.pop()
        if levels and levels[-1] == level:
            counters[-1] += 1
        else:
            levels.append(level)
            counters.append(1)
        line = _TAG.sub(lambda m: m.group(0) if _KEPT_TAG.match(m.group(0)) else "", inner).strip()
        out.append(
            {
                "toclevel": len(levels),
                "level": str(level),
                "line": line,
                "number": ".".join(str(c) for c in counters),
                "index": str(index),
                "fromtitle": shown,
                "byteoffset": offsets[index - 1] if index - 1 < len(offsets) else None,
                "anchor": anchor,
            }
        )
    return out


def display_title(site: Site, title: Title) -> str:
    main = html.escape(title.text)
    if title.ns == 0:
        return f'<span class="mw-page-title-main">{main}</span>'
    ns = html.escape(site.parser.namespaces.name(title.ns))
    return (
        f'<span class="mw-page-title-namespace">{ns}</span>'
        '<span class="mw-page-title-separator">:</span>'
        f'<span class="mw-page-title-main">{main}</span>'
    )


def _head_html(site: Site, title: Title) -> str:
    name = html.escape(site.parser.prefixed_text(title.ns, title.dbkey))
    return (
        '<!DOCTYPE html>\n<html class="client-nojs" lang="en" dir="ltr">\n<head>\n'
        f'<meta charset="UTF-8"/>\n<title>{name} - {html.escape(site.sitename)}</title>\n'
        f'<meta name="generator" content="{GENERATOR}"/>\n'
        '<link rel="EditURI" type="application/rsd+xml" '
        f'href="{html.escape(site.api_url)}?action=rsd"/>\n</head>\n'
        '<body class="mediawiki ltr sitedir-ltr">'
    )


def _title_list(
    ctx: ApiContext, titles: list[tuple[int, str]], parsed: parsing.Parsed
) -> list[dict[str, Any]]:
    items = []
    for ns, dbkey in titles:
        item: dict[str, Any] = {"ns": ns}
        ctx.out.content(item, "title", ctx.site.parser.prefixed_text(ns, dbkey))
        ctx.out.flag_if(item, "exists", (ns, dbkey) in parsed.existing)
        items.append(item)
    return items


def _text(o: Output, result: dict[str, Any]) -> None:
    result["text"] = o.raw(o.body)


def _langlinks(o: Output, result: dict[str, Any]) -> None:
    langlinks = []
    for lang, linked in o.parsed.rendered.languages if o.wikitext else []:
        item: dict[str, Any] = {
            "lang": lang,
            "url": o.ctx.site.interwiki_url(lang, f"{lang}:{linked}"),
        }
        item["langname"] = name_in(lang, o.uselang) or ""
        item["autonym"] = autonym(lang) or ""
        o.ctx.out.content(item, "title", linked)
        langlinks.append(item)
    result["langlinks"] = langlinks


def _categories(o: Output, result: dict[str, Any]) -> None:
    parsed, out = o.parsed, o.ctx.out
    cats = []
    for name in parsed.rendered.categories if o.wikitext else []:
        # Without a key of its own a category sorts under the page's default sort key.
        item = {"sortkey": parsed.links.categories.get(name) or parsed.links.defaultsort}
        out.content(item, "category", name)
        out.flag_if(item, "missing", name not in parsed.existing_categories)
        out.flag_if(item, "hidden", name in parsed.hidden_categories)
        cats.append(item)
    result["categories"] = cats


def _categorieshtml(o: Output, result: dict[str, Any]) -> None:
    result["categorieshtml"] = o.raw(categories_html(o.ctx.site.parser, o.parsed))


def _limitreportdata(o: Output, result: dict[str, Any]) -> None:
    result["limitreportdata"] = limit_report_data(o.parsed, o.fv)


def _limitreporthtml(o: Output, result: dict[str, Any]) -> None:
    result["limitreporthtml"] = o.raw(limit_report_html(o.parsed))


def _parsetree(o: Output, result: dict[str, Any]) -> None:
    result["parsetree"] = o.raw(parsetree(o.text))


def _links(o: Output, result: dict[str, Any]) -> None:
    # The parser keeps no bare link to the page itself (it renders a self-link).
    own = (o.title.ns, o.title.dbkey)
    pages = sorted(o.parsed.links.page_targets(own)) if o.wikitext else []
    result["links"] = _title_list(o.ctx, pages, o.parsed)


def _templates(o: Output, result: dict[str, Any]) -> None:
    used = sorted(set(o.parsed.rendered.templates)) if o.wikitext else []
    result["templates"] = _title_list(o.ctx, used, o.parsed)


def _images(o: Output, result: dict[str, Any]) -> None:
    result["images"] = sorted(o.parsed.links.images) if o.wikitext else []


def _externallinks(o: Output, result: dict[str, Any]) -> None:
    result["externallinks"] = sorted(o.parsed.links.external) if o.wikitext else []


def _sections_prop(o: Output, result: dict[str, Any]) -> None:
    sections = _sections(o.ctx.site, o.title, o.headings_html, o.text) if o.wikitext else []
    result["sections"] = sections
    if o.fv >= 2:
        result["showtoc"] = 'id="toc"' in o.body
    elif 'id="toc"' in o.body:
        result["showtoc"] = ""


def _parsewarnings(o: Output, result: dict[str, Any]) -> None:
    result["parsewarnings"] = []


def _parsewarningshtml(o: Output, result: dict[str, Any]) -> None:
    result["parsewarningshtml"] = []


def _displaytitle(o: Output, result: dict[str, Any]) -> None:
    if not o.wikitext:
        # No parser ran to set one (JSON, plain text): the title itself, escaped.
        name = o.ctx.site.parser.prefixed_text(o.title.ns, o.title.dbkey)
        result["displaytitle"] = html.escape(name, quote=False)
        return
    shown = o.parsed.links.props.get("displaytitle")
    result["displaytitle"] = shown or display_title(o.ctx.site, o.title)


def _subtitle(o: Output, result: dict[str, Any]) -> None:
    result["subtitle"] = ""


def _headhtml(o: Output, result: dict[str, Any]) -> None:
    result["headhtml"] = o.raw(_head_html(o.ctx.site, o.title))


def _modules(o: Output, result: dict[str, Any]) -> None:
    result["modules"] = []
    result["modulescripts"] = []
    result["modulestyles"] = []


def _jsconfigvars(o: Output, result: dict[str, Any]) -> None:
    result["jsconfigvars"] = {}


def _encodedjsconfigvars(o: Output, result: dict[str, Any]) -> None:
    result["encodedjsconfigvars"] = "{}"


def _indicators(o: Output, result: dict[str, Any]) -> None:
    result["indicators"] = [] if o.fv < 2 else {}


def _iwlinks(o: Output, result: dict[str, Any]) -> None:
    iwlinks = []
    for prefix, iw_title in sorted(o.parsed.links.interwiki) if o.wikitext else []:
        item = {"prefix": prefix, "url": o.ctx.site.interwiki_url(prefix, f"{prefix}:{iw_title}")}
        o.ctx.out.content(item, "title", f"{prefix}:{iw_title.replace('_', ' ')}")
        iwlinks.append(item)
    result["iwlinks"] = iwlinks


def _wikitext(o: Output, result: dict[str, Any]) -> None:
    result["wikitext"] = o.raw(o.text)
    if o.params["pst"]:
        result["psttext"] = o.raw(o.text)


def _properties(o: Output, result: dict[str, Any]) -> None:
    properties = sorted(o.parsed.links.props.items()) if o.wikitext else []
    if o.fv < 2:
        result["properties"] = [{"name": k, "*": v} for k, v in properties]
    else:
        result["properties"] = dict(properties)


Builder = Callable[[Output, dict[str, Any]], None]

# In the result's order. `revid` belongs to the result's head (set before any rendering) and the
# deprecated `headitems` adds nothing, so neither has a builder here.
BUILDERS: tuple[tuple[str, Builder], ...] = (
    ("text", _text),
    ("langlinks", _langlinks),
    ("categories", _categories),
    ("categorieshtml", _categorieshtml),
    ("limitreportdata", _limitreportdata),
    ("limitreporthtml", _limitreporthtml),
    ("parsetree", _parsetree),
    ("links", _links),
    ("templates", _templates),
    ("images", _images),
    ("externallinks", _externallinks),
    ("sections", _sections_prop),
    ("parsewarnings", _parsewarnings),
    ("parsewarningshtml", _parsewarningshtml),
    ("displaytitle", _displaytitle),
    ("subtitle", _subtitle),
    ("headhtml", _headhtml),
    ("modules", _modules),
    ("jsconfigvars", _jsconfigvars),
    ("encodedjsconfigvars", _encodedjsconfigvars),
    ("indicators", _indicators),
    ("iwlinks", _iwlinks),
    ("wikitext", _wikitext),
    ("properties", _properties),
)


def add_props(output: Output, props: set[str], result: dict[str, Any]) -> None:
    """Each asked-for part of the parse, in the table's order."""
    for prop, build in BUILDERS:
        if prop in props:
            build(output, result)
