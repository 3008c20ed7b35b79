"""`Special:WhatLinksHere/<page>`: the pages that link to a page, redirect to it, transclude it or
(for a file) show it, from the same link tables the API's `backlinks`, `embeddedin` and
`imageusage` read, with a namespace filter."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.reads.links import incoming
from atrium.wiki.titles import NS_FILE, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.recentchanges import namespace_filter
from atrium.wiki.web.special.render import Links, render

KINDS = (("redirects", "redirect page"), ("links", ""), ("templates", "transclusion"))
KEY = ("target_ns", "target_title", "page_id")


async def handle(ctx: SpecialContext) -> Response:
    text = (ctx.param("target") or ctx.subpage).strip()
    target = ctx.title_of(text) if text else None
    namespace = namespace_filter(ctx)
    limit = ctx.int_param("limit", 50, 1, 500)
    found: dict[int, tuple[Title, list[str]]] = {}
    if target is not None:
        kinds = [*KINDS, ("files", "file link")] if target.ns == NS_FILE else list(KINDS)
        for kind, label in kinds:
            rows = await ctx.db.read(
                lambda conn, kind=kind: incoming(
                    conn, kind, [(target.ns, target.dbkey)],
                    namespaces=None if namespace is None else [namespace],
                    redirect_filter=None, fragment_filter=None, cont=None, key=KEY,
                    limit=limit,
                )
            )  # fmt: skip
            for row in rows:
                title = Title(int(row["page_namespace"]), str(row["page_title"]))
                _title, labels = found.setdefault(int(row["page_id"]), (title, []))
                if label:
                    labels.append(label)
    links = Links(ctx.site)
    entries = sorted(found.values(), key=lambda entry: links.name(entry[0]))
    return await render(
        ctx,
        "whatlinkshere.html",
        f'Pages that link to "{links.name(target)}"' if target else "What links here",
        text=text,
        target=target,
        invalid=bool(text) and target is None,
        namespace=namespace,
        entries=entries[:limit],
    )


PAGE = SpecialPage("WhatLinksHere", "What links here", "pagetools", handle)
