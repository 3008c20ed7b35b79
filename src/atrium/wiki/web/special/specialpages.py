"""`Special:SpecialPages`: every Special page the reader may use, by section; restricted ones in
bold, and listed only to readers holding their right (SpecialPageFactory::getUsablePages)."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import GROUPS, SpecialPage
from atrium.wiki.web.special.render import render


def listing(ctx: SpecialContext, table: list[SpecialPage]) -> Response:
    usable = [p for p in table if p.restricted is None or ctx.reader.allowed(p.restricted)]
    sections = []
    for key, heading in GROUPS.items():
        members = sorted((p for p in usable if p.group == key), key=lambda p: p.title)
        if members:
            sections.append((key, heading, members))
    return render(
        ctx,
        "specialpages.html",
        "Special pages",
        sections=sections,
        restricted=any(p.restricted for p in usable),
    )
