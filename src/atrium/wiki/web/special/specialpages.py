"""`Special:SpecialPages`: every Special page the reader may use, by section; restricted ones in
bold, and listed only to readers holding their right (SpecialPageFactory::getUsablePages)."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import GROUPS
from atrium.wiki.web.special.render import render
from atrium.wiki.web.specialpages import SpecialPage


async def listing(
    ctx: SpecialContext, table: list[SpecialPage], titles: dict[str, str]
) -> Response:
    """`titles`: the link text of pages that have one other than their name."""
    usable = [p for p in table if p.restriction is None or ctx.reader.allowed(p.restriction)]
    sections = []
    for key, heading in GROUPS.items():
        members = sorted((p for p in usable if p.group == key), key=lambda p: p.name)
        if members:
            sections.append((key, heading, members))
    return await render(
        ctx,
        "specialpages.html",
        "Special pages",
        sections=sections,
        restricted=any(p.restriction for p in usable),
        titles=titles,
    )
