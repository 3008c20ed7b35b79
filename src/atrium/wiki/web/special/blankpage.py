"""`Special:BlankPage`: a page that says nothing but that it is blank, which MediaWiki keeps for
measuring the cost of the skin alone."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import message_page

HEADING = "Blank page"


async def handle(ctx: SpecialContext) -> Response:
    return await message_page(
        ctx, HEADING, "This page is intentionally left blank.", 200, box="mw-blankpage"
    )


PAGE = SpecialPage("BlankPage", HEADING, "other", handle, listed=False)
