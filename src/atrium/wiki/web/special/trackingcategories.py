"""`Special:TrackingCategories`: the categories the parser puts pages in by itself (a broken file
link, a hidden category, an exceeded expansion limit), each with the interface message that names
it, how many members it has, and what earns it (the message's `-desc` text)."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki.messages.store import CORE_MESSAGES
from atrium.wiki.reads.categories import member_counts
from atrium.wiki.reads.page_view import link_states
from atrium.wiki.reads.tracking import TRACKING_MESSAGES
from atrium.wiki.titles import NS_CATEGORY, NS_MEDIAWIKI, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render, wikitext_html

HEADING = "Tracking categories"


async def handle(ctx: SpecialContext) -> Response:
    rows: list[dict[str, Any]] = []
    for key in TRACKING_MESSAGES:
        name = CORE_MESSAGES[key]
        rows.append(
            {
                "category": Title(NS_CATEGORY, name.replace(" ", "_")),
                "name": name,
                "message": Title(NS_MEDIAWIKI, key[:1].upper() + key[1:]),
                "key": key,
                "desc": CORE_MESSAGES.get(f"{key}-desc", "No description available."),
            }
        )
    counts = await ctx.db.read(member_counts, [r["category"].dbkey for r in rows])
    # A message's page reads as existing whether or not it was edited (its default text is
    # there), as MediaWiki links it; the categories' pages are blue or red as they exist.
    known, _redirects = await ctx.db.read(
        link_states, {(r["category"].ns, r["category"].dbkey) for r in rows}
    )
    for row in rows:
        row["count"] = counts.get(row["category"].dbkey, 0)
        row["desc_html"] = Markup(await wikitext_html(ctx, row["desc"]))
    return await render(ctx, "trackingcategories.html", HEADING, rows=rows, known=known)


PAGE = SpecialPage("TrackingCategories", HEADING, "pages", handle)
