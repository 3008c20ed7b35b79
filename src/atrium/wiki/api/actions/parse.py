"""`action=parse`: wikitext (given, a page's current text or an old revision) rendered to HTML,
with the parts of MediaWiki's ParserOutput that `prop` asks for, in formatversion 1 or 2. Which
text is parsed is `parse_source`'s job; each `prop` is built in `parse_props`."""

from __future__ import annotations

import html
import re
from typing import Any

from atrium.wiki import content_models
from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import prefixed
from atrium.wiki.api.actions.parse_props import Output, add_props
from atrium.wiki.api.actions.parse_report import limit_report_comment
from atrium.wiki.api.actions.parse_source import Source, given_source, only_pst, stored_source
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import BOOLEAN, INTEGER, TEXT, ModuleSpec, Param, enum
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import parsing
from atrium.wiki.wikitext.html.editsection import add_edit_links

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

_TOC = re.compile(r'<div id="toc" class="toc".*?</ul>\n</div>\n', re.S)


async def parse(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    given = [n for n in ("text", "page", "pageid", "oldid") if params[n] is not None]
    if len(given) > 1:
        raise ApiUsageError("invalidparammix", msg.invalidparammix(given), module="parse")
    props: set[str] = set(params["prop"])
    if params["oldid"] is not None or params["page"] is not None or params["pageid"] is not None:
        source = await stored_source(ctx, params)
    else:
        source = await given_source(ctx, params, props)
        if params["onlypst"]:
            return await only_pst(ctx, params, source.text)
    result = await _head(ctx, params, props, source)
    if not props:
        return {"parse": result}
    model = source.model
    if "parsetree" in props and model != "wikitext":
        raise ApiUsageError(
            "notwikitext", msg.api("apierror-parsetree-notwikitext"), module="parse"
        )
    title, text = source.title, source.text
    parsed = await ctx.db.read_cached_or_rendering(
        parsing.cached_parse, parsing.parse, ctx.site, title, text, source.variables, None, model
    )
    uselang = await ctx.user_language() if "langlinks" in props else "en"
    add_props(_output(ctx, params, model, source, parsed, uselang), props, result)
    return {"parse": result}


async def _head(
    ctx: ApiContext, params: dict[str, Any], props: set[str], source: Source
) -> dict[str, Any]:
    """What every answer carries, whatever `prop` asks: the page, revision, redirects, summary."""
    result: dict[str, Any] = {"title": prefixed(ctx, source.title), "pageid": source.page_id}
    if source.rev_id is not None and "revid" in props:
        result["revid"] = source.rev_id
    if params["redirects"] and (params["page"] is not None or params["pageid"] is not None):
        result["redirects"] = source.redirects
    if params["summary"] is not None:
        summary = await ctx.db.read(parsing.format_comment, ctx.site, params["summary"])
        result["parsedsummary"] = {"*": summary} if ctx.fv < 2 else summary
    return result


def _output(
    ctx: ApiContext,
    params: dict[str, Any],
    model: str,
    source: Source,
    parsed: parsing.Parsed,
    uselang: str,
) -> Output:
    """The rendering as the options shape it: code shown as code, the table of contents dropped,
    edit links added, and the wrapper's class."""
    site, title = ctx.site, source.title
    body = parsed.rendered.html
    if params["disabletoc"]:
        body = _TOC.sub("", body)
    headings_html = body
    if not params["disableeditsection"] and model == "wikitext":
        body = add_edit_links(site.parser.prefixed_dbkey(title.ns, title.dbkey), body)
    wrapper = params["wrapoutputclass"]
    inner = body.removeprefix('<div class="mw-parser-output">').removesuffix("</div>")
    parsed_model = model in content_models.PARSED
    if parsed_model and not params["disablelimitreport"] and not params["disablepp"]:
        inner += limit_report_comment(parsed)
    body = f'<div class="{html.escape(wrapper)}">{inner}</div>' if wrapper else inner
    # CSS and JavaScript are parsed for their links, categories and templates too.
    wikitext = parsed_model
    return Output(ctx, params, title, source.text, parsed, body, headings_html, wikitext, uselang)


ACTIONS = (Action(PARSE, parse),)
