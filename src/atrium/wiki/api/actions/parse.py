"""`action=parse`: wikitext (given, a page's current text or an old revision) rendered to HTML,
with the parts of MediaWiki's ParserOutput that `prop` asks for, in formatversion 1 or 2."""

from __future__ import annotations

import html
import re
from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import parse_title, prefixed
from atrium.wiki.api.actions.parse_report import (
    categories_html,
    limit_report_data,
    limit_report_html,
)
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, INTEGER, TEXT, ModuleSpec, Param, enum
from atrium.wiki.changes.pages import split_sections
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.reads import parsing
from atrium.wiki.reads.pst_inputs import transform_for_save
from atrium.wiki.reads.visibility import DELETED_TEXT, user_can_bitfield
from atrium.wiki.site import GENERATOR, LANGUAGE_NAMES, Site
from atrium.wiki.titles import Title
from atrium.wiki.wikitext.html.editsection import add_edit_links
from atrium.wiki.wikitext.links import redirect_target
from atrium.wiki.wikitext.preprocess import parsetree

PROPS = (
    "categories",
    "categorieshtml",
    "displaytitle",
    "encodedjsconfigvars",
    "externallinks",
    "headhtml",
    "images",
    "indicators",
    "iwlinks",
    "jsconfigvars",
    "langlinks",
    "limitreportdata",
    "limitreporthtml",
    "links",
    "modules",
    "parsetree",
    "parsewarnings",
    "parsewarningshtml",
    "properties",
    "revid",
    "sections",
    "subtitle",
    "templates",
    "text",
    "wikitext",
    "headitems",
)
DEFAULT_PROPS = (
    "text|langlinks|categories|links|templates|images|externallinks|sections|revid|"
    "displaytitle|iwlinks|properties|parsewarnings"
)
CONTENT_MODELS = ("css", "javascript", "json", "text", "unknown", "wikitext")
CONTENT_FORMATS = (
    "application/json",
    "application/octet-stream",
    "application/unknown",
    "application/x-binary",
    "text/css",
    "text/javascript",
    "text/plain",
    "text/unknown",
    "text/x-wiki",
    "unknown/unknown",
)

PARSE = ModuleSpec(
    "parse",
    "ApiParse",
    "action",
    "",
    (
        Param("title"),
        Param("text", TEXT),
        Param("revid", INTEGER),
        Param("summary"),
        Param("page"),
        Param("pageid", INTEGER),
        Param("redirects", BOOLEAN),
        Param("oldid", INTEGER),
        Param(
            "prop", enum(*PROPS), default=DEFAULT_PROPS, multi=True, deprecatedvalues=("headitems",)
        ),
        Param("wrapoutputclass", default="mw-parser-output"),
        Param("pst", BOOLEAN),
        Param("onlypst", BOOLEAN),
        Param("effectivelanglinks", BOOLEAN, deprecated=True),
        Param("section"),
        Param("sectiontitle"),
        Param("disablepp", BOOLEAN, deprecated=True),
        Param("disablelimitreport", BOOLEAN),
        Param("disableeditsection", BOOLEAN),
        Param("disablestylededuplication", BOOLEAN),
        Param("showstrategykeys", BOOLEAN),
        Param("generatexml", BOOLEAN, deprecated=True),
        Param("preview", BOOLEAN),
        Param("sectionpreview", BOOLEAN),
        Param("disabletoc", BOOLEAN),
        Param("useskin", enum("apioutput", "fallback", "vector", "vector-2022")),
        Param("contentformat", enum(*CONTENT_FORMATS)),
        Param("contentmodel", enum(*CONTENT_MODELS)),
    ),
)

_HEADING_HTML = re.compile(
    r'<h([1-6])><span class="mw-headline" id="([^"]*)">(.*?)</span></h\1>', re.S
)
_HEADING_SOURCE = re.compile(r"^(={1,6})(.+?)\1[ \t]*$", re.M)
_TOC = re.compile(r'<div id="toc" class="toc".*?</ul>\n</div>\n', re.S)
_TAG = re.compile(r"<[^>]*>")
_KEPT_TAG = re.compile(r"</?(i|b|sup|sub|s|del|ins)\b")


def _section(ctx: ApiContext, text: str, section: str, title_given: str) -> str:
    if not section.isdigit():
        raise ApiUsageError("invalidsection", msg.api("apierror-invalidsection"), module="parse")
    parts = split_sections(text)
    index = int(section)
    if index >= len(parts):
        raise ApiUsageError(
            "nosuchsection",
            msg.api("apierror-nosuchsection-what", index, title_given),
            module="parse",
        )
    if index == 0:
        return parts[0]
    level = len(_HEADING_SOURCE.match(parts[index]).group(1))  # type: ignore[union-attr]
    end = index + 1
    while end < len(parts):
        found = _HEADING_SOURCE.match(parts[end])
        if found is None or len(found.group(1)) <= level:
            break
        end += 1
    return "".join(parts[index:end])


def _sections(site: Site, title: Title, body: str, source: str) -> list[dict[str, Any]]:
    """ParserOutput's sections: numbered by relative depth as the table of contents is, with the
    byte offset of each heading in the source."""
    # Byte offsets counted piece by piece: encoding each prefix whole is quadratic.
    offsets: list[int] = []
    offset = previous = 0
    for found in _HEADING_SOURCE.finditer(source):
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
                "linkAnchor": anchor,
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


def _code_html(model: str, text: str) -> str:
    if model == "text":
        return f"<pre>{html.escape(text, quote=False)}\n</pre>"
    kind = {"css": "css", "javascript": "js", "json": "json"}.get(model, model)
    return f'<pre class="mw-code mw-{kind}" dir="ltr">\n{html.escape(text, quote=False)}\n</pre>\n'


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


async def parse(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    out = ctx.out
    fv = ctx.fv
    given = [n for n in ("text", "page", "pageid", "oldid") if params[n] is not None]
    if len(given) > 1:
        raise ApiUsageError("invalidparammix", msg.invalidparammix(given), module="parse")
    props: set[str] = set(params["prop"])
    result: dict[str, Any] = {}
    variables: dict[str, str] = {}
    rev_id: int | None = None
    page_id = 0
    redirects: list[dict[str, str]] = []
    model = params["contentmodel"] or "wikitext"
    section = params["section"]

    if params["oldid"] is not None or params["page"] is not None or params["pageid"] is not None:
        if params["oldid"] is not None:
            found = await ctx.db.read(parsing.revision, params["oldid"])
            if found is None:
                raise ApiUsageError(
                    "nosuchrevid", msg.api("apierror-nosuchrevid", params["oldid"]), module="parse"
                )
            if not user_can_bitfield(found.deleted, DELETED_TEXT, ctx.caller.rights):
                raise ApiUsageError(
                    "permissiondenied",
                    msg.api("apierror-permissiondenied", msg.message("action-deletedtext")),
                    module="parse",
                )
        else:
            if params["pageid"] is not None:
                rows = await ctx.db.read(page_reads.pages_by_ids, [params["pageid"]])
                if not rows:
                    raise ApiUsageError(
                        "nosuchpageid",
                        msg.api("apierror-nosuchpageid", params["pageid"]),
                        module="parse",
                    )
                title = Title(int(rows[0]["page_namespace"]), str(rows[0]["page_title"]))
            else:
                title = parse_title(ctx, params["page"], "parse")
            current = await ctx.db.read(parsing.current_revision_id, title)
            if current is not None and params["redirects"]:
                first = await ctx.db.read(parsing.revision, current)
                assert first is not None
                target = redirect_target(first.text, ctx.site.parser)
                if target is not None and not target.interwiki and target.dbkey:
                    redirect: dict[str, str] = {
                        "from": prefixed(ctx, title),
                        "to": prefixed(ctx, Title(target.ns, target.dbkey)),
                    }
                    if target.fragment:
                        redirect["tofragment"] = target.fragment
                    redirects.append(redirect)
                    title = Title(target.ns, target.dbkey)
                    current = await ctx.db.read(parsing.current_revision_id, title)
            if current is None:
                raise ApiUsageError(
                    "missingtitle", msg.api("apierror-missingtitle"), module="parse"
                )
            found = await ctx.db.read(parsing.revision, current)
            assert found is not None
        title = found.title
        text = found.text
        rev_id = found.rev_id
        page_id = found.page_id
        variables = {"REVISIONID": str(found.rev_id), "REVISIONUSER": found.public_user}
        variables["REVISIONTIMESTAMP"] = found.timestamp
        if section is not None:
            text = _section(ctx, text, section, f"page {prefixed(ctx, title)}")
    else:
        if (
            params["title"] is None
            and params["text"] is not None
            and params["contentmodel"] is None
        ):
            ctx.warn(
                "parse", "parse-nocontentmodel", msg.api("apiwarn-parse-nocontentmodel", "wikitext")
            )
        if params["title"] is not None and params["text"] is None and props:
            ctx.warn("parse", "parse-titlewithouttext", msg.api("apiwarn-parse-titlewithouttext"))
        title = parse_title(ctx, params["title"] or "API", "parse")
        text = params["text"] or ""
        page_id = await ctx.db.read(parsing.page_id_of, title)
        if params["revid"] is not None:
            variables["REVISIONID"] = str(params["revid"])
            given_rev = await ctx.db.read(parsing.revision, params["revid"])
            if given_rev is not None:
                variables["REVISIONUSER"] = given_rev.public_user
        variables.setdefault("REVISIONUSER", ctx.caller.name)
        if section is not None:
            if section == "new":
                heading = params["sectiontitle"] or params["summary"] or ""
                text = (f"== {heading} ==\n\n" if heading else "") + text
            else:
                text = _section(ctx, text, section, "text")
        if params["pst"] or params["onlypst"]:
            caller = ctx.caller
            text = await ctx.db.read(
                transform_for_save, ctx.site.parser, title, text, caller.id or None, caller.name
            )
        if params["onlypst"]:
            only: dict[str, Any] = {}
            out.content(only.setdefault("text", {}) if fv < 2 else only, "text", text)
            if params["summary"] is not None:
                summary = await ctx.db.read(parsing.format_comment, ctx.site, params["summary"])
                if fv < 2:
                    only["parsedsummary"] = {"*": summary}
                else:
                    only["parsedsummary"] = summary
            return {"parse": only}

    result["title"] = prefixed(ctx, title)
    result["pageid"] = page_id
    if rev_id is not None and "revid" in props:
        result["revid"] = rev_id
    if params["redirects"] and (params["page"] is not None or params["pageid"] is not None):
        result["redirects"] = redirects
    if params["summary"] is not None:
        summary = await ctx.db.read(parsing.format_comment, ctx.site, params["summary"])
        result["parsedsummary"] = {"*": summary} if fv < 2 else summary
    if not props:
        return {"parse": result}

    if "parsetree" in props and model != "wikitext":
        raise ApiUsageError(
            "notwikitext", msg.api("apierror-parsetree-notwikitext"), module="parse"
        )
    site = ctx.site
    parsed = await ctx.db.read_rendering(parsing.parse, site, title, text, variables)
    rendered = parsed.rendered
    body = rendered.html
    if model != "wikitext":
        body = '<div class="mw-parser-output">' + _code_html(model, text) + "</div>"
    if params["disabletoc"]:
        body = _TOC.sub("", body)
    headings_html = body
    if not params["disableeditsection"] and model == "wikitext":
        body = add_edit_links(site.parser.prefixed_dbkey(title.ns, title.dbkey), body)
    wrapper = params["wrapoutputclass"]
    inner = body.removeprefix('<div class="mw-parser-output">').removesuffix("</div>")
    body = f'<div class="{html.escape(wrapper)}">{inner}</div>' if wrapper else inner
    links = parsed.links
    wikitext_only = model == "wikitext"

    if "text" in props:
        result["text"] = {"*": body} if fv < 2 else body
    if "langlinks" in props:
        langlinks = []
        for lang, linked in rendered.languages if wikitext_only else []:
            item: dict[str, Any] = {
                "lang": lang,
                "url": site.interwiki_url(lang, f"{lang}:{linked}"),
            }
            item["langname"] = LANGUAGE_NAMES.get(lang, lang)
            item["autonym"] = LANGUAGE_NAMES.get(lang, lang)
            out.content(item, "title", linked)
            langlinks.append(item)
        result["langlinks"] = langlinks
    if "categories" in props:
        cats = []
        for name in rendered.categories if wikitext_only else []:
            # Without a key of its own a category sorts under the page's default sort key.
            item = {"sortkey": links.categories.get(name) or links.defaultsort}
            out.content(item, "category", name)
            out.flag_if(item, "missing", name not in parsed.existing_categories)
            out.flag_if(item, "hidden", name in parsed.hidden_categories)
            cats.append(item)
        result["categories"] = cats
    if "categorieshtml" in props:
        box = categories_html(site.parser, parsed)
        result["categorieshtml"] = {"*": box} if fv < 2 else box
    if "limitreportdata" in props:
        result["limitreportdata"] = limit_report_data(parsed, fv)
    if "limitreporthtml" in props:
        report = limit_report_html(parsed)
        result["limitreporthtml"] = {"*": report} if fv < 2 else report
    if "parsetree" in props:
        tree = parsetree(text)
        result["parsetree"] = {"*": tree} if fv < 2 else tree
    if "links" in props:
        result["links"] = _title_list(ctx, sorted(links.pages) if wikitext_only else [], parsed)
    if "templates" in props:
        used = sorted(set(rendered.templates)) if wikitext_only else []
        result["templates"] = _title_list(ctx, used, parsed)
    if "images" in props:
        result["images"] = sorted(links.images) if wikitext_only else []
    if "externallinks" in props:
        result["externallinks"] = sorted(links.external) if wikitext_only else []
    if "sections" in props:
        result["sections"] = _sections(site, title, headings_html, text) if wikitext_only else []
        if fv >= 2:
            result["showtoc"] = 'id="toc"' in body
        elif 'id="toc"' in body:
            result["showtoc"] = ""
    if "parsewarnings" in props:
        result["parsewarnings"] = []
    if "parsewarningshtml" in props:
        result["parsewarningshtml"] = []
    if "displaytitle" in props:
        shown = links.props.get("displaytitle") if wikitext_only else None
        result["displaytitle"] = shown or display_title(site, title)
    if "subtitle" in props:
        result["subtitle"] = ""
    if "headhtml" in props:
        head = _head_html(site, title)
        result["headhtml"] = {"*": head} if fv < 2 else head
    if "modules" in props:
        result["modules"] = []
        result["modulescripts"] = []
        result["modulestyles"] = []
    if "jsconfigvars" in props:
        result["jsconfigvars"] = {}
    if "encodedjsconfigvars" in props:
        result["encodedjsconfigvars"] = "{}"
    if "indicators" in props:
        result["indicators"] = [] if fv < 2 else {}
    if "iwlinks" in props:
        iwlinks = []
        for prefix, iw_title in sorted(links.interwiki) if wikitext_only else []:
            item = {"prefix": prefix, "url": site.interwiki_url(prefix, f"{prefix}:{iw_title}")}
            out.content(item, "title", f"{prefix}:{iw_title.replace('_', ' ')}")
            iwlinks.append(item)
        result["iwlinks"] = iwlinks
    if "wikitext" in props:
        result["wikitext"] = {"*": text} if fv < 2 else text
        if params["pst"]:
            result["psttext"] = {"*": text} if fv < 2 else text
    if "properties" in props:
        properties = sorted(links.props.items()) if wikitext_only else []
        if fv < 2:
            result["properties"] = [{"name": k, "*": v} for k, v in properties]
        else:
            result["properties"] = dict(properties)
    return {"parse": result}


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


ACTIONS = (Action(PARSE, parse),)
