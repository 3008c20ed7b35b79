"""`Special:LinkSearch` (`Special:LinkSearch/<pattern>`): the pages that link to external URLs
matching a LinkFilter pattern (`*.example.org/path`, `https://example.org`, `mailto:*@example.org`),
in one namespace or all, paged by `limit` and `offset` as QueryPage pages; a pattern with a
wildcard elsewhere than at the start of the host finds nothing and says why."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from atrium.wiki.reads.link_search import linked_urls
from atrium.wiki.titles import Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.pageswithprop import LIMITS, MAX_OFFSET, namespace_or_all
from atrium.wiki.web.special.render import render
from atrium.wiki.wikitext.linkfilter import URL_PROTOCOLS, like_prefix, parse_url

HEADING = "External links search"
MAX_PATTERN = 2000


def index_prefix(target: str) -> str | None:
    """The constant start of the link indexes a pattern matches (SpecialLinkSearch with
    LinkFilter's one-wildcard conditions), `http://` assumed without a protocol; None for a
    pattern LinkFilter refuses."""
    protocol, rest = "http://", target
    bits = parse_url(target)
    if bits is not None:
        given = f"{bits.scheme}{bits.delimiter}"
        if target.lower().startswith(given.lower()):
            protocol, rest = given, target[len(given) :]
        else:
            protocol = ""
    if rest == "*" and protocol:
        return protocol
    return like_prefix(protocol + rest)


async def handle(ctx: SpecialContext) -> Response:
    target = (ctx.param("target") or ctx.subpage).strip()[:MAX_PATTERN]
    ns = namespace_or_all(ctx)
    limit = ctx.int_param("limit", 50, 1, 5000)
    offset = ctx.int_param("offset", 0, 0, MAX_OFFSET)
    prefix = index_prefix(target) if target else None
    rows: list[Any] = []
    if prefix is not None:
        rows = await ctx.db.read(linked_urls, prefix, ns, offset, limit)
    more = len(rows) > limit
    results = [
        {"url": str(r["el_to"]), "title": Title(int(r["page_namespace"]), str(r["page_title"]))}
        for r in rows[:limit]
    ]
    params: dict[str, str | int] = {"target": target}
    if ns is not None:
        params["namespace"] = ns
    return await render(
        ctx, "linksearch.html", HEADING, target=target, ns=ns, results=results,
        searched=bool(target), refused=bool(target) and prefix is None, offset=offset,
        limit=limit, more=more, limits=LIMITS, params=params, protocols=", ".join(URL_PROTOCOLS),
    )  # fmt: skip


PAGE = SpecialPage("LinkSearch", HEADING, "pages", handle)
