"""`action=opensearch`: title suggestions in the OpenSearch suggestions format, as ApiOpenSearch
answers them: for `format=json` `[search, [titles], [descriptions], [urls]]`, for `format=xml` the
OpenSearch Suggestions XML document.

The titles are the prefix search's (`list=prefixsearch`); descriptions are empty strings, as on
a MediaWiki without an extract provider. Redirects are returned as they are unless
`redirects=resolve`, MediaWiki's default for JSON.
"""

from __future__ import annotations

import html
from typing import Any

import orjson
import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.actions import Action
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.params import BOOLEAN, LIMIT, NAMESPACE, ModuleSpec, Param, enum
from atrium.wiki.reads.prefix_search import prefix_matches

RD = schema.redirect

OPENSEARCH = ModuleSpec(
    "opensearch",
    "ApiOpenSearch",
    "action",
    "",
    (
        Param("search", required=True),
        Param("namespace", NAMESPACE, default=0, multi=True, allspecifier="*"),
        Param("limit", LIMIT, default=10, min=1, max=100, highmax=100),
        Param(
            "profile",
            enum(
                "strict",
                "normal",
                "normal-subphrases",
                "fuzzy",
                "fast-fuzzy",
                "fuzzy-subphrases",
                "classic",
                "engine_autoselect",
            ),
            default="engine_autoselect",
        ),
        Param("suggest", BOOLEAN, deprecated=True),
        Param("redirects", enum("return", "resolve")),
        Param("format", enum("json", "jsonfm", "xml", "xmlfm"), default="json"),
        Param("warningsaserror", BOOLEAN),
    ),
)


def _suggestions(conn: Conn, ctx: ApiContext, params: dict[str, Any]) -> list[tuple[int, str]]:
    """(namespace, dbkey) of each suggestion, redirects replaced by their targets when asked
    (each target once, so there may be fewer than the limit)."""
    limit = params["limit"]
    rows: list[Row] = prefix_matches(
        conn, ctx.site.parser, params["search"], list(params["namespace"]), limit
    )[:limit]
    found = [(int(r["page_namespace"]), str(r["page_title"])) for r in rows]
    # For historical reasons redirects are returned in JSON and resolved in XML by default.
    redirects = params["redirects"] or ("resolve" if params["format"].startswith("xml") else "")
    if redirects != "resolve":
        return found
    redirect_ids = [int(r["page_id"]) for r in rows if r["page_is_redirect"]]
    targets = {
        int(t["rd_from"]): (int(t["rd_namespace"]), str(t["rd_title"]))
        for t in conn.all(
            sa.select(RD.c.rd_from, RD.c.rd_namespace, RD.c.rd_title).where(
                RD.c.rd_from.in_(redirect_ids), RD.c.rd_interwiki == ""
            )
        )
    }
    resolved: list[tuple[int, str]] = []
    for row, title in zip(rows, found, strict=True):
        shown = targets.get(int(row["page_id"]), title)
        if shown not in resolved:
            resolved.append(shown)
    return resolved


async def opensearch(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    found = await ctx.db.read(_suggestions, ctx, params)
    parser = ctx.site.parser
    titles = [parser.prefixed_text(ns, key) for ns, key in found]
    urls = [ctx.site.article_url(parser.prefixed_dbkey(ns, key)) for ns, key in found]
    if params["format"].startswith("xml"):
        document = _suggestion_xml(params["search"], titles, urls)
        if params["format"] == "xmlfm":
            page = f"<!DOCTYPE html>\n<pre>{html.escape(document, quote=False)}</pre>\n"
            ctx.raw_body = (page.encode(), "text/html; charset=utf-8")
        else:
            ctx.raw_body = (document.encode(), "text/xml; charset=utf-8")
        return {}
    body = [params["search"], titles, [""] * len(titles), urls]
    ctx.raw_body = (orjson.dumps(body), "application/json; charset=utf-8")
    return {}


def _suggestion_xml(search: str, titles: list[str], urls: list[str]) -> str:
    """The OpenSearch Suggestions extension's document (ApiOpenSearch's XML printer)."""

    def text(tag: str, value: str) -> str:
        return f'<{tag} xml:space="preserve">{html.escape(value, quote=False)}</{tag}>'

    items = "".join(
        f"<Item>{text('Text', title)}{text('Url', url)}</Item>"
        for title, url in zip(titles, urls, strict=True)
    )
    section = f"<Section>{items}</Section>" if items else "<Section />"
    return (
        '<?xml version="1.0"?><SearchSuggestion version="2.0" '
        'xmlns="http://opensearch.org/searchsuggest2">'
        f"{text('Query', search)}{section}</SearchSuggestion>"
    )


ACTION = Action(OPENSEARCH, opensearch)
